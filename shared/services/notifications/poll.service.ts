import { z } from 'zod';
import { AppError } from '../../errors.js';
import type { Principal } from '../../principal.js';
import type { PollRepository, PollWithOptions } from '../../repositories/poll.repository.js';
import { validate } from '../../validation.js';

export interface Vote {
  pollId: string;
  optionId: string;
}
const newPollSchema = z.object({
  question: z.string().trim().min(1).max(300),
  description: z.string().trim().max(2000).default(''),
  options: z.array(z.string().trim().min(1).max(200)).min(2, 'a poll needs at least two options').max(20),
  targetAccountId: z.uuid().nullable().default(null),
  closesAt: z.coerce.date().nullable().default(null),
});

const isUuid = (v: string) => z.uuid().safeParse(v).success;
const pollClosed = () => AppError.badRequest('This poll is closed');
const alreadyVoted = () => AppError.badRequest('You have already voted in this poll');

export function toPoll({ poll, options, userVote }: PollWithOptions) {
  return {
    id: poll.id,
    question: poll.question,
    description: poll.description,
    status: poll.status,
    targetType: poll.targetType,
    targetUserId: poll.targetAccountId,
    createdAt: poll.createdAt.toISOString(),
    closedAt: poll.closedAt?.toISOString() ?? null,
    totalVotes: poll.totalVotes,
    userVote,
    options: options.map((o) => ({ id: o.id, text: o.text, voteCount: o.voteCount })),
  };
}

/** Feedback polls: one vote per account per poll; closed polls take no votes. */
export class PollService {
  constructor(
    private readonly polls: PollRepository,
    private readonly usernameOf: (accountId: string) => Promise<string | null>,
  ) {}

  async list(account: Principal) {
    // The minute job closes due polls; closing them here too means no one sees one open past its time.
    await this.polls.closeDue();
    const polls = await this.polls.visibleTo(account.id);
    return Promise.all(polls.map((p) => this.withUsername(p)));
  }

  async vote(account: Principal, { pollId, optionId }: Vote) {
    await this.polls.closeDue();
    const found = isUuid(pollId) ? await this.polls.findVisible(account.id, pollId) : undefined;
    if (!found) throw AppError.notFound('Poll not found');
    if (!found.options.some((o) => o.id === optionId)) throw AppError.notFound('Option not found in this poll');
    // Checked here for the common case, and again atomically by the vote itself.
    if (found.poll.status !== 'active') throw pollClosed();
    if (found.userVote) throw alreadyVoted();
    const voted = await this.polls.vote(account.id, pollId, optionId);
    if (!voted.ok) throw voted.reason === 'closed' ? pollClosed() : alreadyVoted();
    const { id, question, status, totalVotes, userVote, options } = toPoll((await this.polls.findVisible(account.id, pollId))!);
    return { id, question, status, totalVotes, userVote, options };
  }

  async create(input: z.input<typeof newPollSchema>) {
    const parsed = validate(newPollSchema, input);
    return this.polls.create(parsed);
  }

  async close(pollId: string) {
    const poll = isUuid(pollId) ? await this.polls.find(pollId) : undefined;
    if (!poll) throw AppError.notFound('Poll not found');
    return (await this.polls.close(pollId)) ?? poll;
  }

  async closeDue(): Promise<number> {
    return this.polls.closeDue();
  }

  private async withUsername(p: PollWithOptions) {
    const poll = toPoll(p);
    return { ...poll, targetUsername: p.poll.targetAccountId ? await this.usernameOf(p.poll.targetAccountId) : null };
  }
}
