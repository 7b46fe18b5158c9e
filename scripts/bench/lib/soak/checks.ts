import { percentile } from '../load.js';
import { sleep, type SoakContext } from './context.js';
import type { SignatureCheck } from './hooks.js';
import type { TrackedFile } from './ledger.js';
import { type Sample, slope } from './recorder.js';
import type { NotificationStreams } from './streams.js';
import type { Topology } from './topology.js';

/** One line of the soak's verdict. */
export interface Check {
  name: string;
  value: number;
  unit: string;
  target?: ['<=' | '>=', number];
  /** correctness checks must pass in every run (CI too); performance ones are for a quiet machine */
  kind: 'correctness' | 'performance' | 'info';
  /** what was found, when something was */
  detail?: string;
}

export function passed(check: Check): boolean {
  if (!check.target) return true;
  const [op, limit] = check.target;
  return op === '<=' ? check.value <= limit : check.value >= limit;
}

/** p99 targets per route, in ms; routes not named here are reported without one. */
export const P99_TARGETS_MS: Record<string, number> = {
  'serve-hot': 50,
  'serve-304': 50,
  'serve-cold': 100,
  'serve-gone': 50,
  'serve-expired': 50,
  rendition: 1000,
  'upload-multipart': 500,
  'upload-url': 1000,
  'upload-mcp': 500,
  'upload-tus': 2000,
  'upload-tus-resumed': 3000,
  'upload-tus-result': 100,
  dashboard: 100,
  'dashboard-search': 100,
  rename: 200,
  move: 200,
  delete: 200,
  'share-link-create': 200,
  'share-link-view': 100,
  'share-link-revoke': 200,
  'share-link-list': 100,
  'poll-vote': 200,
  'poll-list': 100,
  'sse-delivery': 2000,
};
export const RSS_SLOPE_LIMIT_MB_PER_10_MIN = 5;

/**
 * The targets, with those of the routes that run the deliberately slow password hash (scrypt, as at
 * sign-in) once: the route's own target plus three times the hash's cost measured on this machine in
 * the same run, as a CPU-bound step waits its turn among about three busy threads on two cores.
 */
export function p99Targets(passwordHashMs: number): Record<string, number> {
  const hashed = (route: string) => Math.round(P99_TARGETS_MS[route]! + 3 * passwordHashMs);
  return { ...P99_TARGETS_MS, 'share-link-create-password': hashed('share-link-create'), 'share-link-view-password': hashed('share-link-view') };
}

/** A correctness check: what was `found` (none passes), after `context` (what was looked at). */
const problem = (name: string, found: string[], context?: string): Check => {
  const detail = [...(context ? [context] : []), ...found.slice(0, 10)].join('; ');
  return { name, value: found.length, unit: 'found', target: ['<=', 0], kind: 'correctness', ...(detail ? { detail } : {}) };
};

/** Waits until `done` holds (checked every 500 ms), at most `ms`. */
async function until(done: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) return false;
    await sleep(500);
  }
  return true;
}

/**
 * After the traffic: the background work is let finish (queues idle, every brought-forward expiry
 * due and carried out, webhook deliveries settled), then everything the traffic did is compared
 * with what the service holds.
 */
export async function correctnessChecks(ctx: SoakContext, topology: Topology, streams: NotificationStreams, signatures: SignatureCheck, startedOn: string): Promise<Check[]> {
  const { ledger, client, db } = ctx;
  await topology.worker.idle();
  const lastDue = Math.max(0, ...ledger.expiring.map((f) => f.dueAt!));
  await sleep(Math.max(0, lastDue - Date.now()));
  const expiringLeft = async () => {
    const { rows } = await db.query<{ n: number }>(
      'select count(*)::int as n from files f join accounts a on a.id = f.account_id where (a.username, f.filename) in (select * from unnest($1::text[], $2::text[]))',
      [ledger.expiring.map((f) => f.account.username), ledger.expiring.map((f) => f.filename)],
    );
    return rows[0]!.n;
  };
  // The delayed job deletes at the due time; the minute sweep catches any it missed.
  await until(async () => (await expiringLeft()) === 0, 90_000);
  await topology.worker.idle();
  await until(async () => (await db.query<{ n: number }>("select count(*)::int as n from webhook_deliveries where status = 'pending'")).rows[0]!.n === 0, 60_000);
  await sleep(1000);

  const checks: Check[] = [];

  // Every accepted upload still present serves the bytes its answer's digest names, on either web process.
  const unreadable: string[] = [];
  const files = [...ledger.present.all()];
  for (let next = 0; next < files.length; ) {
    await Promise.all(
      files.slice(next, (next += 4)).map(async (file) => {
        if (!(await client.read('final-read', file))) unreadable.push(`${file.account.username}/${file.filename}`);
      }),
    );
  }
  checks.push(problem('accepted uploads present: bytes differ or unreadable', unreadable, `${files.length} files read, ${ledger.stripped} stored without their metadata`));

  // Deleted, renamed-away and expired names are 404.
  const served: string[] = [];
  for (const { account, filename } of [...ledger.gone, ...ledger.expiring]) {
    const res = await client.call('final-gone', client.fileUrl({ account, filename }), {}, [404]);
    if (!res?.ok) served.push(`${account.username}/${filename}: ${res?.status ?? 'no answer'}`);
  }
  checks.push(problem('deleted, renamed-away or expired names not 404', served));

  // The rows are exactly the present uploads, with their digests and sizes.
  const { rows: fileRows } = await db.query<{ username: string; filename: string; sha256: string; size: string }>(
    'select a.username, f.filename, f.sha256, f.size from files f join accounts a on a.id = f.account_id',
  );
  const expected = new Map<string, TrackedFile>(files.map((f) => [`${f.account.username}/${f.filename}`, f]));
  const rowDiff: string[] = [];
  for (const row of fileRows) {
    const key = `${row.username}/${row.filename}`;
    const file = expected.get(key);
    if (!file) rowDiff.push(`${key}: a row no answer named (or that should be gone)`);
    else if (file.sha256 !== row.sha256 || file.size !== Number(row.size)) rowDiff.push(`${key}: row has ${row.size} bytes, ${row.sha256}`);
    expected.delete(key);
  }
  for (const key of expected.keys()) rowDiff.push(`${key}: accepted, but no row`);
  checks.push(problem('file rows not matching the accepted uploads', rowDiff));

  // Quotas and counters equal to the rows.
  const { rows: usage } = await db.query<{ username: string; storage_used: string; file_count: number; upload_count: number; usage_day_count: number; today: boolean; bytes: string; files: number }>(`
    select a.username, a.storage_used, a.file_count, a.upload_count, a.usage_day_count, a.usage_day = (now() at time zone 'utc')::date as today,
           coalesce(sum(f.size), 0) as bytes, count(f.id)::int as files
    from accounts a left join files f on f.account_id = a.id group by a.id`);
  const counters: string[] = [];
  const sameDay = startedOn === new Date().toISOString().slice(0, 10);
  for (const row of usage) {
    const uploads = ledger.uploads.get(row.username) ?? 0;
    if (Number(row.storage_used) !== Number(row.bytes)) counters.push(`${row.username}: storage_used ${row.storage_used}, files hold ${row.bytes}`);
    if (row.file_count !== row.files) counters.push(`${row.username}: file_count ${row.file_count}, ${row.files} rows`);
    if (row.upload_count !== uploads) counters.push(`${row.username}: upload_count ${row.upload_count}, ${uploads} uploads accepted`);
    if (sameDay && row.today && row.usage_day_count !== uploads) counters.push(`${row.username}: usage_day_count ${row.usage_day_count}, ${uploads} accepted today`);
  }
  const { rows: options } = await db.query<{ id: string; poll_id: string; vote_count: number; total_votes: number; votes: number; poll_votes: number }>(`
    select o.id, o.poll_id, o.vote_count, p.total_votes,
           (select count(*)::int from poll_votes v where v.option_id = o.id) as votes,
           (select count(*)::int from poll_votes v where v.poll_id = p.id) as poll_votes
    from poll_options o join polls p on p.id = o.poll_id`);
  for (const row of options) {
    const answered = ledger.votes.get(row.id) ?? 0;
    if (row.vote_count !== row.votes || row.votes !== answered) counters.push(`poll option ${row.id}: vote_count ${row.vote_count}, ${row.votes} rows, ${answered} votes answered 200`);
    if (row.total_votes !== row.poll_votes) counters.push(`poll ${row.poll_id}: total_votes ${row.total_votes}, ${row.poll_votes} rows`);
  }
  // Folders' file counts, where the schema keeps them on the row (moves and deletes race to change them).
  const { rows: folderCounts } = await db.query<{ id: string; file_count: number; files: number }>(`
    select f.id, to_jsonb(f) -> 'file_count' as file_count, (select count(*)::int from files where folder_id = f.id) as files
    from folders f where to_jsonb(f) ? 'file_count'`);
  for (const row of folderCounts.filter((r) => Number(r.file_count) !== r.files)) counters.push(`folder ${row.id}: file_count ${row.file_count}, ${row.files} rows`);
  const { rows: links } = await db.query<{ id: string; views: number }>('select id, views from share_links');
  const linkViews = new Map(links.map((l) => [l.id, l.views]));
  for (const link of ledger.links) {
    const views = linkViews.get(link.id);
    if (link.revoked && views !== undefined) counters.push(`share link ${link.id}: revoked, still a row`);
    // A link goes with its file: one deleted since has no row, and nothing to compare.
    else if (!link.revoked && views !== undefined && views !== link.views) counters.push(`share link ${link.id}: views ${views}, ${link.views} whole bodies served`);
  }
  checks.push(
    problem(
      'quotas and counters not equal to the rows',
      counters,
      `storage, file and upload counts of ${usage.length} accounts, ${folderCounts.length} folder counts, ${options.length} poll options, ${ledger.links.length} share links`,
    ),
  );

  // Storage: nothing without a row, nothing missing or of the wrong size, every digest as recorded.
  const reconcile = (await topology.admin(['storage', 'reconcile', '--min-age', '0'])) as { scanned: number; removed: number; checked: number; missing: unknown[]; wrongSize: unknown[] };
  const verify = (await topology.admin(['storage', 'verify'])) as { checked: number; mismatched: unknown[]; missing: unknown[]; skipped: number };
  checks.push(
    problem(
      'storage reconcile: orphans, missing, wrong size',
      [
        ...(reconcile.removed > 0 ? [`${reconcile.removed} objects no row named`] : []),
        ...reconcile.missing.map((m) => `missing ${JSON.stringify(m)}`),
        ...reconcile.wrongSize.map((m) => `wrong size ${JSON.stringify(m)}`),
      ],
      `${reconcile.scanned} objects scanned, ${reconcile.checked} files checked`,
    ),
  );
  checks.push(
    problem(
      'storage verify: digests differ, objects missing',
      [...verify.mismatched.map((m) => `mismatched ${JSON.stringify(m)}`), ...verify.missing.map((m) => `missing ${JSON.stringify(m)}`)],
      `${verify.checked} objects re-read, ${verify.skipped} without a digest`,
    ),
  );

  // Webhooks: every delivery delivered, one per event, each received with a valid signature.
  const hookProblems: string[] = [];
  const { rows: deliveries } = await db.query<{ username: string; event_type: string; status: string; n: number }>(`
    select a.username, d.event_type, d.status, count(*)::int as n
    from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id join accounts a on a.id = e.account_id
    group by 1, 2, 3`);
  const delivered = (username: string, event: string) => deliveries.filter((d) => d.username === username && d.event_type === event).reduce((s, d) => s + d.n, 0);
  for (const d of deliveries.filter((d) => d.status !== 'delivered')) hookProblems.push(`${d.username}: ${d.n} ${d.event_type} ${d.status}`);
  for (const account of ctx.accounts) {
    const expiredHere = ledger.expiring.filter((f) => f.account === account).length;
    const wanted: [string, number][] = [
      ['file.uploaded', ledger.uploads.get(account.username) ?? 0],
      ['file.deleted', ledger.deletes.get(account.username) ?? 0],
      ['file.expired', expiredHere],
    ];
    for (const [event, count] of wanted) {
      const got = delivered(account.username, event);
      if (got !== count) hookProblems.push(`${account.username}: ${got} ${event} deliveries for ${count} events`);
    }
  }
  const { rows: ids } = await db.query<{ id: string }>("select id from webhook_deliveries where status = 'delivered'");
  const { receiver } = signatures;
  const received = new Set(receiver.received.map((h) => String(h.headers['webhook-id'])));
  const unreceived = ids.filter((r) => !received.has(r.id));
  if (unreceived.length > 0) hookProblems.push(`${unreceived.length} deliveries marked delivered never reached the receiver`);
  signatures.catchUp();
  if (signatures.bad.length > 0) hookProblems.push(`${signatures.bad.length} requests whose signature does not verify (${signatures.bad.slice(0, 3).join('; ')})`);
  checks.push(problem('webhooks: undelivered, miscounted or unsigned', hookProblems, `${receiver.received.length} requests received, ${ids.length} deliveries`));

  // SSE: the streams stayed open and each got every broadcast once.
  const missed = streams.missed();
  checks.push(
    problem(
      'SSE: streams dropped, broadcasts missed or repeated',
      [
        ...(streams.drops > 0 ? [`${streams.drops} drops`] : []),
        ...(streams.duplicates > 0 ? [`${streams.duplicates} repeated`] : []),
        ...missed.map((m) => `${m.title} (sent ${m.sentAt}) reached ${m.received} of ${streams.count} streams; missed by ${m.missedBy}`),
      ],
      `${streams.count} streams, ${streams.broadcasts.length} broadcasts`,
    ),
  );

  // Answers: no 5xx anywhere, and nothing the traffic did not expect (evidence in the problems list).
  const totals = [...ctx.recorder.totals.values()];
  checks.unshift(
    { name: '5xx answers', value: totals.reduce((s, t) => s + t.errors5xx, 0), unit: 'answers', target: ['<=', 0], kind: 'correctness', detail: `${totals.reduce((s, t) => s + t.count, 0)} requests` },
    { name: 'unexpected answers and client-side faults', value: totals.reduce((s, t) => s + t.unexpected, 0), unit: 'found', target: ['<=', 0], kind: 'correctness' },
  );
  return checks;
}

/**
 * Memory slopes of each process after memory's warm-up (the run's second half), and p99 of each
 * route (after the first third) against its target.
 */
export function performanceChecks(samples: readonly Sample[], totals: Map<string, { count: number; settled: number[] }>, warmupSeconds: number, targets = P99_TARGETS_MS): Check[] {
  const checks: Check[] = [{ name: 'memory warm-up: slopes measured from', value: warmupSeconds / 60, unit: 'min', kind: 'info' }];
  for (const [kind, label] of [['heap', 'V8 heap in use'], ['committed', 'V8 heap committed'], ['external', 'memory outside the V8 heap'], ['cache', 'hot-file body cache']] as const) {
    for (const name of [...new Set(samples.filter((s) => s.kind === kind).map((s) => s.name))]) {
      const points = samples.filter((s) => s.kind === kind && s.name === name && s.t >= warmupSeconds).map((s): [number, number] => [s.t, s.heapMb!]);
      checks.push({ name: `${label}, slope after warm-up: ${name}`, value: slope(points) * 600, unit: 'MB/10min', kind: 'info', detail: `${(points[0]?.[1] ?? 0).toFixed(1)} → ${(points.at(-1)?.[1] ?? 0).toFixed(1)} MB` });
    }
  }
  // The target is on RSS right after full collections: between them RSS also holds garbage V8 has not
  // yet collected, a sawtooth whose slope over a few cycles depends on where the run ends in one.
  const rssAfterWarmup = (kind: 'rss' | 'rss-collected', name: string) =>
    samples.filter((s) => s.kind === kind && s.name === name && s.t >= warmupSeconds).map((s): [number, number] => [s.t, s.rssMb!]);
  const fromTo = (points: [number, number][]) => `${(points[0]?.[1] ?? 0).toFixed(1)} → ${(points.at(-1)?.[1] ?? 0).toFixed(1)} MB`;
  for (const name of [...new Set(samples.filter((s) => s.kind === 'rss').map((s) => s.name))]) {
    const all = rssAfterWarmup('rss', name);
    const collected = rssAfterWarmup('rss-collected', name);
    checks.push({ name: `RSS slope after warm-up: ${name}`, value: slope(all) * 600, unit: 'MB/10min', kind: 'info', detail: `every 5 s, ${fromTo(all)}` });
    if (name === 'soak-client') continue;
    // Too short a run for three collections after warm-up (CI's): judged on every sample instead.
    const judged = collected.length >= 3 ? collected : all;
    checks.push({
      name: `RSS slope after warm-up, right after full collections: ${name}`,
      value: slope(judged) * 600,
      unit: 'MB/10min',
      target: ['<=', RSS_SLOPE_LIMIT_MB_PER_10_MIN],
      kind: 'performance',
      detail: judged === collected ? `${collected.length} collections, ${fromTo(collected)}` : `${collected.length} collections: every 5 s instead, ${fromTo(all)}`,
    });
  }
  for (const [route, total] of [...totals].sort(([a], [b]) => a.localeCompare(b))) {
    if (route === 'setup' || route.startsWith('final-') || total.settled.length === 0) continue;
    const target = targets[route];
    checks.push({
      name: `p99 after warm-up: ${route} (${total.settled.length} of ${total.count})`,
      value: percentile(total.settled, 99),
      unit: 'ms',
      ...(target === undefined ? { kind: 'info' as const } : { target: ['<=', target] as ['<=', number], kind: 'performance' as const }),
      detail: `p50 ${percentile(total.settled, 50).toFixed(1)} ms`,
    });
  }
  return checks;
}

/** The lines of a process's log at level error or above (pino: 50, 60). */
export function errorLines(log: string): string[] {
  return log.split('\n').filter((line) => /"level":(5|6)0\b/.test(line));
}
