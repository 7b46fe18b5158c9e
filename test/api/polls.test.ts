import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { polls } from '../../shared/db/schema.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';

describe('feedback polls', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv();
  });
  after(() => env.close());

  const createPoll = (extra: Record<string, unknown> = {}) =>
    env.container.services.polls.create({ question: 'Which format?', description: 'Tell us', options: ['PNG', 'WebP', 'AVIF'], ...extra });

  it('lists polls for everyone and for this account, active first, with the spec fields', async () => {
    const alice = await env.createAccount();
    const bob = await env.createAccount();
    const closed = await createPoll({ question: 'old' });
    await env.container.services.polls.close(closed.poll.id);
    const open = await createPoll({ question: 'new' });
    const aimed = await createPoll({ question: 'just alice', targetAccountId: alice.id });

    const res = await env.api.get('/api/user/polls', { key: alice.apiKey });
    expect(res.status).to.equal(200);
    const list = res.body.data.polls as { id: string; status: string }[];
    const ids = list.map((p) => p.id);
    expect(ids).to.include.members([open.poll.id, aimed.poll.id, closed.poll.id]);
    expect(ids.indexOf(closed.poll.id)).to.be.greaterThan(ids.indexOf(open.poll.id));
    const first = list.find((p) => p.id === aimed.poll.id)!;
    expect(first).to.have.all.keys('id', 'question', 'description', 'status', 'targetType', 'targetUserId', 'targetUsername', 'createdAt', 'closedAt', 'totalVotes', 'userVote', 'options');
    expect(first).to.include({ status: 'active', targetType: 'user', targetUserId: alice.id, targetUsername: alice.username, totalVotes: 0, userVote: null, closedAt: null });
    expect((first as unknown as { options: unknown[] }).options).to.deep.equal(aimed.options.map((o) => ({ id: o.id, text: o.text, voteCount: 0 })));

    const bobs = await env.api.get('/api/user/polls', { key: bob.apiKey });
    expect(bobs.body.data.polls.map((p: { id: string }) => p.id)).not.to.include(aimed.poll.id);
  });

  it('counts a vote, fills userVote, and refuses a second one (400)', async () => {
    const alice = await env.createAccount();
    const { poll, options } = await createPoll();
    const res = await env.api.post('/api/user/polls/vote', { key: alice.apiKey, json: { pollId: poll.id, optionId: options[1]!.id } });
    expect(res.status).to.equal(200);
    expect(res.body.success).to.equal(true);
    expect(res.body.poll).to.have.all.keys('id', 'question', 'status', 'totalVotes', 'userVote', 'options');
    expect(res.body.poll).to.include({ id: poll.id, totalVotes: 1, userVote: options[1]!.id, status: 'active' });
    expect(res.body.poll.options[1].voteCount).to.equal(1);
    const again = await env.api.post('/api/user/polls/vote', { key: alice.apiKey, json: { pollId: poll.id, optionId: options[0]!.id } });
    expect(again.status).to.equal(400);
    const listed = await env.api.get('/api/user/polls', { key: alice.apiKey });
    expect(listed.body.data.polls.find((p: { id: string }) => p.id === poll.id).userVote).to.equal(options[1]!.id);
  });

  it('counts exactly one of 50 concurrent votes from one account', async () => {
    const alice = await env.createAccount();
    const { poll, options } = await createPoll();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        env.api.post('/api/user/polls/vote', { key: alice.apiKey, json: { pollId: poll.id, optionId: options[i % 3]!.id } }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).to.have.length(1);
    const refusals = results.filter((r) => r.status !== 200);
    expect(new Set(refusals.map((r) => `${r.status} ${r.body.error}`))).to.deep.equal(new Set(['400 You have already voted in this poll']));
    const [row] = await env.container.db.select().from(polls).where(eq(polls.id, poll.id));
    expect(row!.totalVotes).to.equal(1);
  });

  it('refuses votes on a closed poll (400) and unknown polls or options (404)', async () => {
    const alice = await env.createAccount();
    const bob = await env.createAccount();
    const { poll, options } = await createPoll();
    const other = await createPoll();
    const aimed = await createPoll({ targetAccountId: bob.id });
    const vote = (pollId: string, optionId: string) => env.api.post('/api/user/polls/vote', { key: alice.apiKey, json: { pollId, optionId } });
    expect((await vote('00000000-0000-4000-8000-000000000000', options[0]!.id)).status).to.equal(404);
    expect((await vote('not-a-uuid', options[0]!.id)).status).to.equal(404);
    expect((await vote(poll.id, other.options[0]!.id)).status).to.equal(404);
    expect((await vote(aimed.poll.id, aimed.options[0]!.id)).status).to.equal(404);
    expect((await env.api.post('/api/user/polls/vote', { key: alice.apiKey, json: { pollId: poll.id } })).status).to.equal(400);
    await env.container.services.polls.close(poll.id);
    const closed = await vote(poll.id, options[0]!.id);
    expect(closed.status).to.equal(400);
    expect(closed.body.error).to.match(/closed/);
  });

  it('refuses votes past closesAt at once, before the scheduled job has run', async () => {
    const alice = await env.createAccount();
    const closesAt = new Date(Date.now() - 5000);
    const { poll, options } = await createPoll({ closesAt });
    const vote = await env.api.post('/api/user/polls/vote', { key: alice.apiKey, json: { pollId: poll.id, optionId: options[0]!.id } });
    expect(vote.status).to.equal(400);
    expect(vote.body.error).to.match(/closed/);
    const listed = (await env.api.get('/api/user/polls', { key: alice.apiKey })).body.data.polls as { id: string; status: string; closedAt: string }[];
    const shown = listed.find((p) => p.id === poll.id)!;
    expect(shown.status).to.equal('closed');
    expect(new Date(shown.closedAt).getTime()).to.be.closeTo(closesAt.getTime(), 1000);
  });

  it('closes polls whose closesAt has passed (the scheduled job)', async () => {
    const alice = await env.createAccount();
    const due = await createPoll({ closesAt: new Date(Date.now() - 1000) });
    const later = await createPoll({ closesAt: new Date(Date.now() + 3600_000) });
    expect(await env.container.services.polls.closeDue()).to.be.at.least(1);
    expect((await env.container.db.select().from(polls).where(eq(polls.id, due.poll.id)))[0]!.status).to.equal('closed');
    const listed = (await env.api.get('/api/user/polls', { key: alice.apiKey })).body.data.polls as { id: string; status: string; closedAt: string | null }[];
    expect(listed.find((p) => p.id === due.poll.id)).to.include({ status: 'closed' });
    expect(listed.find((p) => p.id === due.poll.id)!.closedAt).to.be.a('string');
    expect(listed.find((p) => p.id === later.poll.id)).to.include({ status: 'active' });
    // The workers of the expiry queue register the schedule when they start.
    await env.container.jobs.registerSchedules(['expiry']);
    const names = (await env.container.jobs.queue('expiry').getJobSchedulers()).map((s) => [s.key, s.name, s.every]);
    expect(names).to.deep.include(['close-due-polls', 'polls.close-due', 60_000]);
  });
});
