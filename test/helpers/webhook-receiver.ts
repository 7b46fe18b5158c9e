import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { eventually } from './eventually.js';
import { pngBytes } from './media.js';
import type { TestEnv } from './test-env.js';
import { upload } from './uploads.js';

export interface ReceivedHook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Date.now() when its body had arrived */
  at: number;
}

/** The status to answer a request with; a promise holds the answer back until it settles. */
export type Reply = (hook: ReceivedHook, nth: number) => number | Promise<number>;

/** A webhook receiver on loopback: records every request and answers each path as the test says (204 unless told). */
export class WebhookReceiver {
  readonly received: ReceivedHook[] = [];
  private readonly replies = new Map<string, Reply>();

  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => {
      void text(req).then(async (body) => {
        const hook = { path: req.url ?? '/', headers: req.headers, body, at: Date.now() };
        receiver.received.push(hook);
        const nth = receiver.received.filter((h) => h.path === hook.path).length;
        const status = await (receiver.replies.get(hook.path) ?? (() => 204))(hook, nth);
        if (!res.destroyed) res.writeHead(status).end();
      });
    });
    return receiver;
  }

  url(path: string): string {
    return `${this.origin}${path}`;
  }

  on(path: string, reply: Reply): this {
    this.replies.set(path, reply);
    return this;
  }

  to(path: string): ReceivedHook[] {
    return this.received.filter((h) => h.path === path);
  }

  /** Waits for the `count`-th request to `path` and answers them all. */
  async waitFor(path: string, count = 1, timeoutMs = 10_000): Promise<ReceivedHook[]> {
    await eventually(async () => this.to(path).length >= count, timeoutMs).catch(() => {
      throw new Error(`${path} received ${this.to(path).length} of ${count} requests`);
    });
    return this.to(path);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** What the standardwebhooks package makes of a request, with `secret`: the payload, or throws. */
export function verified(hook: ReceivedHook, secret: string): { type: string; timestamp: string; data: any } {
  const headers = Object.fromEntries(Object.entries(hook.headers).map(([k, v]) => [k, String(v)]));
  return new Webhook(secret).verify(hook.body, headers) as { type: string; timestamp: string; data: any };
}

export type HookAccount = { id: string; apiKey: string };
export type HookEndpoint = { id: string; url: string; events: string[]; description: string; enabled: boolean; disabledReason: string | null; createdAt: string; secret: string };
export type HookDelivery = { id: string; eventType: string; status: string; attempts: number; lastStatusCode: number | null; lastError: string | null; durationMs: number | null; nextAttemptAt: string | null };

/** The webhook routes as the tests call them (the env and receiver are read when called, once started). */
export function webhookClient(env: () => TestEnv, receiver: () => WebhookReceiver) {
  return {
    async addEndpoint(account: HookAccount, path: string, events: string[] = ['file.uploaded'], extra: Record<string, unknown> = {}): Promise<HookEndpoint> {
      const res = await env().api.post('/api/user/webhooks', { key: account.apiKey, json: { url: receiver().url(path), events, ...extra } });
      expect(res.status, res.text).to.equal(200);
      return res.body.data;
    },
    async uploadPng(account: HookAccount, seed: number, fields: Record<string, string> = {}): Promise<{ filename: string }> {
      const res = await upload(env(), { key: account.apiKey, bytes: pngBytes(1500, seed), json: true, fields });
      expect(res.status, res.text).to.equal(200);
      return res.body.data;
    },
    async deliveriesOf(account: HookAccount, endpoint: { id: string }): Promise<HookDelivery[]> {
      const res = await env().api.get(`/api/user/webhooks/${endpoint.id}/deliveries`, { key: account.apiKey });
      expect(res.status, res.text).to.equal(200);
      return res.body.data;
    },
    async endpointOf(account: HookAccount, id: string): Promise<HookEndpoint> {
      return ((await env().api.get('/api/user/webhooks', { key: account.apiKey })).body.data as HookEndpoint[]).find((e) => e.id === id)!;
    },
  };
}
