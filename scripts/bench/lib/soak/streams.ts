import { type ClientRequest, request } from 'node:http';
import { SseParser } from '../../../lib/sse-parser.js';
import { every, sleep, type SoakContext } from './context.js';
import type { SoakAccount } from './ledger.js';

const BROADCAST_EVERY_MS = 30_000;
const DELIVERY_WAIT_MS = 30_000;

/** One open notification stream; reopened after Last-Event-ID should it drop (which counts against the run). */
class NotificationStream {
  readonly titles = new Set<string>();
  private lastEventId = '';
  private req: ClientRequest | undefined;
  private closing = false;

  constructor(
    private readonly url: string,
    /** account and web process, for the report of what it missed */
    readonly label: string,
    private readonly key: string,
    private readonly onNotification: (title: string, stream: NotificationStream) => void,
    private readonly onDrop: (why: string) => void,
  ) {}

  /** Resolves once the stream has said its unread count: it is live. */
  open(): Promise<void> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { 'x-api-key': this.key, accept: 'text/event-stream' };
      if (this.lastEventId) headers['last-event-id'] = this.lastEventId;
      let live = false;
      const dropped = (why: string) => {
        if (this.closing) return;
        if (!live) return reject(new Error(why));
        this.onDrop(why);
        void sleep(1000).then(() => this.open().catch((err: Error) => this.onDrop(`reopening: ${err.message}`)));
      };
      this.req = request(this.url, { headers }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return dropped(`stream answered ${res.statusCode}`);
        }
        const parser = new SseParser();
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          for (const event of parser.feed(chunk).events) {
            if (event.id) this.lastEventId = event.id;
            if (event.event === 'notification') this.onNotification((JSON.parse(event.data!) as { title: string }).title, this);
            if (event.event === 'unread' && !live) {
              live = true;
              resolve();
            }
          }
        });
        res.on('close', () => dropped('the server closed the stream'));
      });
      this.req.on('error', (err) => dropped(err.message));
      this.req.end();
    });
  }

  close(): void {
    this.closing = true;
    this.req?.destroy();
  }
}

/** A broadcast sent. */
interface Broadcast {
  title: string;
  broadcastId: string;
  sentAt: string;
}

/**
 * `count` open notification streams spread over the accounts and web processes, and a broadcast to
 * every account every 30 s (admin CLI `notify --all`) that each stream must receive once. Delivery is
 * timed from the notification row's creation to its arrival.
 */
export class NotificationStreams {
  readonly broadcasts: Broadcast[] = [];
  /** arrival times (ms since the epoch) by title, one per stream; a notification can outrun the CLI's answer */
  private readonly arrivals = new Map<string, number[]>();
  drops = 0;
  duplicates = 0;
  private readonly streams: NotificationStream[] = [];

  constructor(private readonly ctx: SoakContext) {}

  get count(): number {
    return this.streams.length;
  }

  async open(count: number): Promise<void> {
    const { ctx } = this;
    for (let i = 0; i < count; i++) {
      // Each account's streams on every web process, so a miss shows whether a process or an account lost it.
      const account: SoakAccount = ctx.accounts[i % ctx.accounts.length]!;
      const web = ctx.client.webs[Math.floor(i / ctx.accounts.length) % ctx.client.webs.length]!;
      const stream = new NotificationStream(
        `${web}/api/user/notifications/stream`,
        `${account.username} on ${new URL(web).port}`,
        account.apiKey,
        (title, from) => this.arrived(title, from),
        (why) => {
          this.drops += 1;
          ctx.recorder.fault('sse-stream', `${account.username}: ${why}`);
        },
      );
      this.streams.push(stream);
      await stream.open();
    }
  }

  /** Broadcasts every 30 s until the soak stops, each waited for (at most 30 s) and timed. */
  broadcastLoop(): Promise<void> {
    const { ctx } = this;
    return every(ctx, 'sse-broadcast', BROADCAST_EVERY_MS, async () => {
      const title = `soak-broadcast-${this.broadcasts.length + 1}`;
      const sentAt = `${ctx.recorder.now().toFixed(0)} s`;
      const { broadcastId } = (await ctx.admin(['notify', '--all', '--type', 'soak', '--title', title, '--message', 'to every open stream'])) as { broadcastId: string };
      const broadcast: Broadcast = { title, broadcastId, sentAt };
      this.broadcasts.push(broadcast);
      await this.delivered(broadcast);
    });
  }

  /** Waits (at most 30 s) until every stream has `broadcast`, then records each delivery's latency. */
  async delivered(broadcast: Broadcast): Promise<void> {
    const deadline = Date.now() + DELIVERY_WAIT_MS;
    const arrivals = () => this.arrivals.get(broadcast.title) ?? [];
    while (arrivals().length < this.streams.length && Date.now() < deadline) await sleep(100);
    const { rows } = await this.ctx.db.query<{ t: string | null }>('select extract(epoch from min(created_at)) * 1000 as t from notifications where broadcast_id = $1', [
      broadcast.broadcastId,
    ]);
    const created = Number(rows[0]?.t ?? Date.now());
    for (const at of arrivals()) this.ctx.recorder.request('sse-delivery', 200, Math.max(0, at - created), true);
  }

  /** Broadcasts that some stream never received, with the streams that missed each (by account and web port). */
  missed(): { title: string; sentAt: string; received: number; missedBy: string }[] {
    return this.broadcasts.flatMap((b) => {
      const missing = this.streams.filter((s) => !s.titles.has(b.title));
      if (missing.length === 0) return [];
      const byLabel = new Map<string, number>();
      for (const s of missing) byLabel.set(s.label, (byLabel.get(s.label) ?? 0) + 1);
      const missedBy = [...byLabel].map(([label, n]) => `${n} of ${label}`).join(', ');
      return [{ title: b.title, sentAt: b.sentAt, received: this.streams.length - missing.length, missedBy }];
    });
  }

  close(): void {
    for (const stream of this.streams) stream.close();
  }

  private arrived(title: string, stream: NotificationStream): void {
    if (stream.titles.has(title)) {
      this.duplicates += 1;
      this.ctx.recorder.fault('sse-stream', `${title} arrived twice on one stream`);
      return;
    }
    stream.titles.add(title);
    const arrivals = this.arrivals.get(title) ?? [];
    this.arrivals.set(title, arrivals);
    arrivals.push(Date.now());
  }
}
