import { sha256 } from './client.js';
import { every, pickOf, type SoakContext } from './context.js';
import type { SoakAccount, TrackedFile, TrackedLink } from './ledger.js';
import { holding } from './reads.js';

const POLL_EVERY_MS = 5 * 60_000;
const LINK_PASSWORD = 'soak-secret';

const changeable = (f: TrackedFile) => !f.hot && !f.busy;

/** What the other web process answers for a name that is gone: 404 as soon as the change was answered. */
async function expectGone(ctx: SoakContext, account: SoakAccount, filename: string, changedOn: string): Promise<void> {
  ctx.ledger.gone.push({ account, filename });
  await ctx.client.call('serve-gone', ctx.client.fileUrl({ account, filename }, ctx.client.otherThan(changedOn)), {}, [404]);
}

/** A rename every 3 s: the old name is 404 and the new one serves the same bytes, on the other web process. */
export function renames(ctx: SoakContext): Promise<void> {
  let n = 0;
  return every(ctx, 'rename', 3000, async () => {
    const file = ctx.ledger.present.pick(changeable);
    if (!file) return;
    await holding(file, async () => {
      const web = ctx.client.web();
      const newFilename = `rn${++n}-${file.filename.replace(/^rn\d+-/, '')}`;
      const res = await ctx.client.call('rename', `${web}/api/user/images/${encodeURIComponent(file.filename)}/rename`, { method: 'PUT', key: file.account.apiKey, json: { newFilename } });
      if (!res?.ok) return;
      const old = file.filename;
      file.filename = (JSON.parse(res.body.toString()) as { newFilename: string }).newFilename;
      await expectGone(ctx, file.account, old, web);
      await ctx.client.read('serve-cold', file, ctx.client.otherThan(web));
    });
  });
}

/** Moves every 4 s: up to three files of one account into one of its folders or the root, in one batch (or one alone). */
export function moves(ctx: SoakContext): Promise<void> {
  let n = 0;
  return every(ctx, 'move', 4000, async () => {
    n += 1;
    const account = pickOf(ctx.accounts);
    const files: TrackedFile[] = [];
    for (let i = 0; i < 3; i++) {
      const file = ctx.ledger.present.pick((f) => f.account === account && changeable(f));
      if (file) {
        file.busy = true;
        files.push(file);
      }
    }
    if (files.length === 0) return;
    try {
      const folderId = pickOf([...account.folderIds, null]);
      const web = ctx.client.web();
      if (n % 3 === 0) {
        await ctx.client.call('move', `${web}/api/user/images/${encodeURIComponent(files[0]!.filename)}/move`, { method: 'PATCH', key: account.apiKey, json: { folderId } });
        return;
      }
      const filenames = files.map((f) => f.filename);
      const res = await ctx.client.call('move', `${web}/api/user/images/move`, { method: 'PATCH', key: account.apiKey, json: { filenames, folderId } });
      const body = res?.ok ? (JSON.parse(res.body.toString()) as { moved: string[]; errors: unknown[] }) : undefined;
      if (body && (body.moved.length !== filenames.length || body.errors.length > 0)) ctx.recorder.fault('move', `moved ${JSON.stringify(body.moved)} of ${JSON.stringify(filenames)}: ${JSON.stringify(body.errors)}`);
    } finally {
      for (const file of files) file.busy = false;
    }
  });
}

/** Whether the upload's deletion link still names the file: it carries the name at upload time, and a rename leaves it dead (404). */
const deletionLinkWorks = (file: TrackedFile) => decodeURIComponent(new URL(file.deletionUrl).pathname.split('/').at(-1)!) === file.filename;

/** A delete every 3 s, by the dashboard's route or the upload's deletion link in turn. */
export function deletes(ctx: SoakContext): Promise<void> {
  let n = 0;
  return every(ctx, 'delete', 3000, async () => {
    const file = ctx.ledger.present.pick(changeable);
    if (!file) return;
    n += 1;
    ctx.ledger.present.remove(file);
    const web = ctx.client.web();
    const res =
      n % 2 === 0 || !deletionLinkWorks(file)
        ? await ctx.client.call('delete', `${web}/api/user/images/${encodeURIComponent(file.filename)}`, { method: 'DELETE', key: file.account.apiKey })
        : await ctx.client.call('delete', ctx.client.on(file.deletionUrl, web), {});
    if (!res?.ok) return void ctx.ledger.present.add(file);
    ctx.ledger.count(ctx.ledger.deletes, file.account.username);
    await expectGone(ctx, file.account, file.filename, web);
  });
}

/** Files whose expiry was brought forward: served shortly before they are due, 404 from their due time. */
export function expiries(ctx: SoakContext): Promise<void> {
  const before = new Set<TrackedFile>();
  const after = new Set<TrackedFile>();
  return every(ctx, 'serve-expired', 500, async () => {
    const now = Date.now();
    for (const file of ctx.ledger.expiring) {
      // Well before its due time: a slow answer on a busy machine must not cross it.
      if (!before.has(file) && file.dueAt! - now < 20_000 && file.dueAt! - now > 8_000) {
        before.add(file);
        await ctx.client.read('serve-cold', file);
      }
      if (!after.has(file) && now > file.dueAt! + 1000) {
        after.add(file);
        await ctx.client.call('serve-expired', ctx.client.fileUrl(file), {}, [404]);
      }
    }
  });
}

/**
 * Share links every 3 s: each of a file, some with a view limit of 2 (the third view is 410), some with
 * a password; viewed on either web process, and one in three revoked (404 from then on).
 */
export function shareLinks(ctx: SoakContext): Promise<void> {
  let n = 0;
  return every(ctx, 'share-link', 3000, async () => {
    const file = ctx.ledger.present.pick(changeable);
    if (!file) return;
    n += 1;
    const limited = n % 2 === 0;
    const password = n % 3 === 0 ? LINK_PASSWORD : undefined;
    await holding(file, async () => {
      const web = ctx.client.web();
      const key = file.account.apiKey;
      const created = await ctx.client.call(password ? 'share-link-create-password' : 'share-link-create', `${web}/api/user/share-links`, {
        method: 'POST',
        key,
        json: { filename: file.filename, ...(limited ? { maxViews: 2 } : {}), ...(password ? { password } : {}) },
      });
      if (!created?.ok) return;
      const { id, url } = (JSON.parse(created.body.toString()) as { data: { id: string; url: string } }).data;
      const link: TrackedLink = { id, account: file.account, views: 0, revoked: false };
      ctx.ledger.links.push(link);
      const headers = password ? { 'x-share-password': password } : undefined;
      const route = password ? 'share-link-view-password' : 'share-link-view';
      const views = limited ? 3 : 1 + (n % 2);
      for (let i = 0; i < views; i++) {
        const res = await ctx.client.call(route, ctx.client.on(url, ctx.client.web()), { headers }, [limited && i >= 2 ? 410 : 200]);
        if (res?.status !== 200) continue;
        link.views += 1;
        if (sha256(res.body) !== file.sha256) ctx.recorder.fault(route, `${file.filename}: the link served other bytes`);
      }
      if (n % 5 === 0) await ctx.client.call('share-link-list', `${ctx.client.web()}/api/user/share-links`, { key });
      if (n % 3 !== 1) return;
      const revoked = await ctx.client.call('share-link-revoke', `${ctx.client.web()}/api/user/share-links/${id}`, { method: 'DELETE', key });
      if (!revoked?.ok) return;
      link.revoked = true;
      await ctx.client.call(route, ctx.client.on(url, ctx.client.otherThan(web)), { headers }, [404]);
    });
  });
}

async function createPoll(ctx: SoakContext): Promise<void> {
  const number = ctx.ledger.polls.length + 1;
  const poll = (await ctx.admin(['poll', 'create', '--question', `Soak poll ${number}?`, '--option', 'Yes', '--option', 'No', '--option', 'Maybe'])) as {
    id: string;
    options: { id: string; text: string }[];
  };
  ctx.ledger.polls.push({ ...poll, voters: new Set() });
}

/** A poll (a new one every 5 minutes, by the admin CLI) that every account votes on once; a second vote is 400. */
export async function polls(ctx: SoakContext): Promise<void> {
  await createPoll(ctx);
  let openedAt = Date.now();
  return every(ctx, 'poll-vote', 2000, async () => {
    if (Date.now() - openedAt > POLL_EVERY_MS) {
      await createPoll(ctx);
      openedAt = Date.now();
    }
    const poll = ctx.ledger.polls.at(-1)!;
    const web = ctx.client.web();
    const voter = ctx.accounts.find((a) => !poll.voters.has(a.username));
    if (!voter) {
      if (Math.random() < 0.2) await ctx.client.call('poll-vote', `${web}/api/user/polls/vote`, { method: 'POST', key: pickOf(ctx.accounts).apiKey, json: { pollId: poll.id, optionId: poll.options[0]!.id } }, [400]);
      else await ctx.client.call('poll-list', `${web}/api/user/polls`, { key: pickOf(ctx.accounts).apiKey });
      return;
    }
    const option = pickOf(poll.options);
    const res = await ctx.client.call('poll-vote', `${web}/api/user/polls/vote`, { method: 'POST', key: voter.apiKey, json: { pollId: poll.id, optionId: option.id } });
    if (!res?.ok) return;
    poll.voters.add(voter.username);
    ctx.ledger.count(ctx.ledger.votes, option.id);
  });
}
