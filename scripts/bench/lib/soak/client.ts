import { createHash } from 'node:crypto';
import type { Ledger, SoakAccount, TrackedFile } from './ledger.js';
import type { Recorder } from './recorder.js';

export interface Answer {
  status: number;
  body: Buffer;
  headers: Headers;
  /** the status was one the caller expected */
  ok: boolean;
}

/** The upload answer's record (multipart, URL, tus result, upload_file). */
export interface UploadResult {
  url: string;
  filename: string;
  sizeBytes: number;
  sha256: string;
  deletionUrl: string;
}

const TIMEOUT_MS = 60_000;

/** fetch says only "fetch failed": what failed is its cause (a code such as ECONNRESET, and a message). */
function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return [(err as Error).message, cause?.code, cause?.message].filter(Boolean).join(': ');
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The traffic's side of HTTP: the web processes taken in turn, each request timed and recorded under
 * its route with whether its status was expected, and the bookkeeping every kind of upload shares.
 */
export class SoakClient {
  private turn = 0;

  constructor(
    readonly webs: readonly string[],
    readonly recorder: Recorder,
    readonly ledger: Ledger,
  ) {}

  /** The next web process's origin (production's proxy spreads requests the same way). */
  web(): string {
    return this.webs[this.turn++ % this.webs.length]!;
  }

  /** The other web process than `web`'s. */
  otherThan(web: string): string {
    return this.webs.find((w) => w !== web) ?? web;
  }

  /** `url` (an answer's link, on BASE_URL) on the web process `web`. */
  on(url: string, web: string): string {
    const parsed = new URL(url);
    return `${web}${parsed.pathname}${parsed.search}`;
  }

  fileUrl(file: Pick<TrackedFile, 'account' | 'filename'>, web = this.web(), query = ''): string {
    return `${web}/u/${file.account.username}/${encodeURIComponent(file.filename)}${query}`;
  }

  async call(route: string, url: string, init: RequestInit & { key?: string; json?: unknown }, expected: number[] = [200]): Promise<Answer | undefined> {
    const { key, json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (key) headers.set('x-api-key', key);
    if (json !== undefined) headers.set('content-type', 'application/json');
    const method = rest.method ?? 'GET';
    const what = `${method} ${new URL(url).pathname}`;
    const began = performance.now();
    let res: Response | undefined;
    for (let attempt = 1; !res; attempt++) {
      try {
        res = await fetch(url, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body, signal: AbortSignal.timeout(TIMEOUT_MS) });
      } catch (err) {
        // As browsers and proxies do: a GET whose connection failed before any answer is sent once more
        // (an idle keep-alive connection the server closed just as a starved client reused it). Counted.
        if (method === 'GET' && attempt === 1 && !(err instanceof DOMException)) {
          this.recorder.retried(route, `${what}: ${describe(err)}`);
          continue;
        }
        this.recorder.request(route, 0, performance.now() - began, false, `${what}: ${describe(err)}`);
        return undefined;
      }
    }
    try {
      const body = Buffer.from(await res.arrayBuffer());
      const ok = expected.includes(res.status);
      this.recorder.request(route, res.status, performance.now() - began, ok, ok ? what : `${what}: ${body.toString('utf8', 0, 200)}`);
      return { status: res.status, body, headers: res.headers, ok };
    } catch (err) {
      this.recorder.request(route, res.status, performance.now() - began, false, `${what}: the body broke off: ${describe(err)}`);
      return undefined;
    }
  }

  /** Reads a present file and checks its bytes against the answer's digest; false when they differ. */
  async read(route: string, file: TrackedFile, web = this.web()): Promise<boolean> {
    const res = await this.call(route, this.fileUrl(file, web), {});
    if (!res?.ok) return false;
    if (sha256(res.body) !== file.sha256) {
      this.recorder.fault(route, `${file.account.username}/${file.filename}: ${res.body.length} bytes whose SHA-256 is not the upload's (${file.size} bytes)`);
      return false;
    }
    file.etag = res.headers.get('etag') ?? undefined;
    return true;
  }

  /** Books an accepted upload: into the pool, or (with a due time) among the expiring files. */
  accepted(account: SoakAccount, result: UploadResult, sent: Buffer, image: boolean, extra: Partial<TrackedFile> = {}): TrackedFile {
    const file: TrackedFile = {
      account,
      filename: result.filename,
      sha256: result.sha256,
      size: result.sizeBytes,
      image,
      deletionUrl: result.deletionUrl,
      hot: false,
      busy: false,
      ...extra,
    };
    this.ledger.count(this.ledger.uploads, account.username);
    // What was stored is what was sent, unless metadata was removed from it.
    if (result.sha256 !== sha256(sent)) this.ledger.stripped += 1;
    if (file.dueAt) this.ledger.expiring.push(file);
    else this.ledger.present.add(file);
    return file;
  }
}
