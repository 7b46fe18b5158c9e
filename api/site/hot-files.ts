import type { IncomingMessage, ServerResponse } from 'node:http';
import fresh from 'fresh';
import type { Config } from '../../shared/config.js';
import type { FileUrls } from '../../shared/services/files/file-urls.js';
import type { HostedFileService } from '../../shared/services/files/hosted-file.service.js';
import type { RequestRecorder } from '../middleware/request-context.middleware.js';
import { type FileHeaderCache, offloadHeader, parseRange } from './file-response.js';
import { hostedRouteOf } from './hosted-paths.js';

export interface HotFileDeps {
  hosted: HostedFileService;
  urls: FileUrls;
  headers: FileHeaderCache;
  recorder: RequestRecorder;
  serving: Config['serving'];
  trustProxy: boolean;
}

/**
 * The fast path for hot hosted files, in front of the app: a GET or HEAD of a public file whose lookup
 * and bytes are both in memory (or whose bytes a front proxy sends) is answered here, in a few
 * microseconds, without the app's middleware. It decides nothing of its own: the same routing
 * (hostedRouteOf), the same rules (HostedFileService.peek: expiry, quarantine, held moderation), the
 * same headers (FileHeaderCache) and request records. Anything else — a query string (private links),
 * a range without a proxy, a lookup or bytes not in memory — goes to the app, which answers it in
 * full and warms the caches. Returns whether it answered.
 */
export function hotFileResponder(deps: HotFileDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { hosted, urls, headers, recorder, serving, trustProxy } = deps;
  const bodies = hosted.bodies;
  const offload = serving.offload;
  return (req, res) => {
    const method = req.method;
    const path = req.url ?? '';
    if ((method !== 'GET' && method !== 'HEAD') || path.includes('?')) return false;
    const started = performance.now();
    const hostname = hostnameOf(req, trustProxy);
    const route = hostname === undefined ? undefined : hostedRouteOf(urls.hostRole(hostname), path);
    const file = route && hosted.peek(route.target);
    if (!route || !file || file.isPrivate) return false;
    // Ranges are the app's to answer, or (once the app found them satisfiable) the proxy's to send.
    const range = req.headers.range;
    let body: Buffer | undefined;
    if (!offload) {
      body = range === undefined ? bodies.get(file.objectKey) : undefined;
      if (!body) return false;
    } else if (range !== undefined && parseRange(range, file.size) === 'unsatisfiable') return false;

    const { headers: fileHeaders, contentType, reprDigest } = headers.of(file);
    const reqId = recorder.idFor(req.headers['x-request-id'] as string | undefined);
    const out: Record<string, string> = { 'X-Request-Id': reqId, ...fileHeaders };
    let status = 200;
    if (fresh(req.headers, { etag: fileHeaders.ETag, 'last-modified': fileHeaders['Last-Modified'] })) status = 304;
    else {
      out['Content-Type'] = contentType;
      // As the app: on answers that carry the whole representation (the proxy answers a Range 206 itself).
      if (reprDigest && range === undefined) out['Repr-Digest'] = reprDigest;
      if (offload) {
        const [name, value] = offloadHeader(offload, file, hosted);
        out[name] = value;
        out['Content-Length'] = '0';
      } else out['Content-Length'] = String(body!.length);
    }
    out['Server-Timing'] = `app;dur=${(performance.now() - started).toFixed(1)}`;
    res.writeHead(status, out);
    res.end(status === 200 && method === 'GET' ? body : undefined);
    recorder.record(reqId, method, path, route.route, status, performance.now() - started);
    return true;
  };
}

/** The request's host name as the app reads it (Koa's ctx.hostname); undefined for what only the app parses (IPv6). */
function hostnameOf(req: IncomingMessage, trustProxy: boolean): string | undefined {
  const forwarded = trustProxy ? req.headers['x-forwarded-host'] : undefined;
  const host = (typeof forwarded === 'string' && forwarded ? forwarded.split(',', 1)[0]!.trim() : req.headers.host) ?? '';
  return host.startsWith('[') ? undefined : host.split(':', 1)[0];
}
