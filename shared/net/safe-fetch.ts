import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import { Agent } from 'undici';
import { AppError } from '../errors.js';
import { isPublicAddress } from './ip-policy.js';

export interface SafeFetchOptions {
  /** Bounds the whole download, body included. */
  timeoutMs: number;
  /** Default 5. */
  maxRedirects?: number;
  signal?: AbortSignal;
  /** Exact origins (`http://127.0.0.1:5123`) whose hops skip the address check; for tests only. */
  allowedOrigins?: readonly string[];
  headers?: Record<string, string>;
}

export interface SafeResponse {
  /** Final URL after redirects. */
  url: string;
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  contentLength?: number;
  body: Readable;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Sent to the first origin only: a redirect must not carry the caller's credentials elsewhere.
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/**
 * GETs a user-supplied URL without letting it reach internal networks: every hop's host must
 * resolve only to public addresses, and the socket is pinned to exactly those addresses so a DNS
 * answer that changes between check and connect (rebinding) cannot redirect it.
 */
export async function safeFetch(url: string, options: SafeFetchOptions): Promise<SafeResponse> {
  const maxRedirects = options.maxRedirects ?? 5;
  let current = parseTarget(url);
  const firstOrigin = current.origin;
  const { timer, signal } = deadline(options, 'download');

  try {
    for (let redirects = 0; ; redirects++) {
      const headers = current.origin === firstOrigin ? { ...options.headers } : withoutCredentials(options.headers);
      const hop = await fetchHop(current, { method: 'GET', headers }, signal, options.allowedOrigins ?? []);
      const location = hop.headers.location;
      if (REDIRECT_STATUSES.has(hop.status) && location !== undefined) {
        hop.release();
        if (redirects >= maxRedirects) throw AppError.badRequest(`too many redirects (more than ${maxRedirects})`);
        current = parseTarget(location, current);
        continue;
      }
      if (hop.status < 200 || hop.status > 299) {
        hop.release();
        throw AppError.badRequest(`remote server answered ${hop.status} for ${current.href}`);
      }
      return finish(hop, current.href, timer, signal);
    }
  } catch (err) {
    clearTimeout(timer);
    throw signal.aborted ? signal.reason : err;
  }
}

/**
 * One request to a user-supplied URL under the same address rules, for callers that judge the answer
 * themselves (webhook deliveries): redirects are not followed and every status is answered.
 * `timeoutMs` bounds the request and the reading of the body.
 */
export async function safeRequest(url: string, options: SafeFetchOptions & { method: string; body?: string }): Promise<SafeResponse> {
  const target = parseTarget(url);
  const { timer, signal } = deadline(options, 'request');
  try {
    const hop = await fetchHop(target, { method: options.method, headers: { ...options.headers }, body: options.body }, signal, options.allowedOrigins ?? []);
    return finish(hop, target.href, timer, signal);
  } catch (err) {
    clearTimeout(timer);
    throw signal.aborted ? signal.reason : err;
  }
}

/**
 * Refuses (400) a URL that safeFetch or safeRequest would refuse to reach as it resolves now: not
 * http(s), credentials in it, or a host with a non-public address (origins in `allowedOrigins` aside).
 * Checked again on every request, since what a name resolves to can change.
 */
export async function assertPublicUrl(url: string, allowedOrigins: readonly string[] = [], timeoutMs = 5000): Promise<void> {
  const target = parseTarget(url);
  if (!allowedOrigins.includes(target.origin)) await abortable(resolvePublic(target.hostname), AbortSignal.timeout(timeoutMs));
}

/** The clock of one fetch: aborts with a 400 once `timeoutMs` has passed, or with the caller's signal. */
function deadline(options: SafeFetchOptions, what: string) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(AppError.badRequest(`${what} took longer than ${options.timeoutMs / 1000} seconds`)), options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([controller.signal, options.signal]) : controller.signal;
  return { timer, signal };
}

interface Hop {
  status: number;
  headers: Record<string, string>;
  body: Readable;
  /** Drops the body and closes the hop's connection. */
  release(): void;
}

async function fetchHop(
  target: URL,
  request: { method: string; headers: Record<string, string>; body?: string | undefined },
  signal: AbortSignal,
  allowedOrigins: readonly string[],
): Promise<Hop> {
  const trusted = allowedOrigins.includes(target.origin);
  const pinned = trusted ? undefined : await abortable(resolvePublic(target.hostname), signal);
  // One agent per hop, so its connect-time lookup can only ever answer the addresses checked above.
  const agent = new Agent({ connect: pinned ? { lookup: pinnedLookup(pinned) } : {} });
  try {
    const response = await agent.request({
      origin: target.origin,
      path: target.pathname + target.search,
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      signal,
    });
    const body = response.body;
    return {
      status: response.statusCode,
      headers: flattenHeaders(response.headers),
      body,
      release: () => {
        // Destroying an unfinished undici body emits an AbortError nobody else is listening for.
        body.on('error', () => {}).destroy();
        void agent.destroy();
      },
    };
  } catch (err) {
    void agent.destroy();
    throw signal.aborted ? signal.reason : networkError(err, target);
  }
}

/** Every address the host has must be public; IP literals are judged as they stand. */
async function resolvePublic(hostname: string): Promise<LookupAddress[]> {
  const literal = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  const family = isIP(literal);
  const addresses = family ? [{ address: literal, family }] : await lookupAll(hostname);
  const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
  if (blocked) throw AppError.badRequest(`${hostname} points to a non-public address (${blocked.address})`);
  if (addresses.length === 0) throw AppError.badRequest(`${hostname} has no addresses`);
  return addresses;
}

function lookupAll(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true }, (err, addresses) => {
      if (err) reject(AppError.badRequest(`could not resolve ${hostname} (${err.code ?? err.message})`));
      else resolve(addresses);
    });
  });
}

/** A `net.connect` lookup that never asks DNS again; handles both single and `all` (happy eyeballs) calls. */
function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
    const usable = addresses.filter((entry) => wanted === 0 || entry.family === wanted);
    const first = usable[0];
    if (!first) {
      callback(Object.assign(new Error('no checked address of the requested family'), { code: 'ENOTFOUND' }), '', 0);
    } else if (options.all) {
      (callback as unknown as (err: null, all: LookupAddress[]) => void)(null, usable);
    } else {
      callback(null, first.address, first.family);
    }
  };
}

function finish(hop: Hop, url: string, timer: NodeJS.Timeout, signal: AbortSignal): SafeResponse {
  // Re-emitting through our own stream lets body errors (timeout, reset) surface as AppErrors.
  const body = new PassThrough();
  const upstream = hop.body;
  const stop = (err: unknown) => {
    if (!body.destroyed) body.destroy(err instanceof AppError ? err : networkError(err, new URL(url)));
  };
  const onAbort = () => stop(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
  upstream.on('error', stop);
  upstream.pipe(body);
  // Whether the body ends, fails, times out or the reader gives up: stop the clock, close the socket.
  body.once('close', () => {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    hop.release();
  });
  const declared = hop.headers['content-length'];
  const contentLength = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : undefined;
  return { url, status: hop.status, headers: hop.headers, contentLength, body };
}

/** Parses and vets a hop's URL; `base` resolves relative redirect targets. */
function parseTarget(raw: string, base?: URL): URL {
  let target: URL;
  try {
    target = new URL(raw, base);
  } catch {
    throw AppError.badRequest(`not a valid URL: ${raw}`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw AppError.badRequest(`only http and https URLs can be fetched, not ${target.protocol}`);
  }
  if (target.username || target.password) throw AppError.badRequest('URLs with credentials are not allowed');
  return target;
}

function withoutCredentials(headers: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.includes(name.toLowerCase())),
  );
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** Rejects as soon as the signal fires, for steps (DNS) that cannot be cancelled themselves. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  UND_ERR_SOCKET: 'connection closed unexpectedly',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

function networkError(err: unknown, target: URL): AppError {
  if (err instanceof AppError) return err;
  const cause = (err as { cause?: unknown } | null)?.cause;
  const code = (err as { code?: string } | null)?.code ?? (cause as { code?: string } | undefined)?.code;
  const reason = (code && NETWORK_REASONS[code]) ?? (code?.includes('CERT') ? 'TLS certificate rejected' : undefined);
  return AppError.badRequest(`could not fetch ${target.origin}: ${reason ?? `network error${code ? ` (${code})` : ''}`}`);
}
