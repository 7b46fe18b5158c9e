import type { IncomingMessage, ServerResponse } from 'node:http';
import fresh from 'fresh';
import type { Config } from '../../shared/config.js';
import type { FileUrls } from '../../shared/services/files/file-urls.js';
import type { HostedFileService } from '../../shared/services/files/hosted-file.service.js';
import { type RenditionRequest, renditionRequestOfSearch } from '../../shared/services/media/renditions/rendition-params.js';
import type { RenditionService } from '../../shared/services/media/renditions/rendition.service.js';
import type { RequestRecorder } from '../middleware/request-context.middleware.js';
import { type FileHeaderCache, offloadHeader, parseRange } from './file-response.js';
import { hostedRouteOf } from './hosted-paths.js';

export interface HotFileDeps {
  hosted: HostedFileService;
  renditions: RenditionService;
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
 * same headers (FileHeaderCache) and request records; a rendition it answers only once the app has
 * served it here. Anything else — a private link, a query the app refuses, a range without a proxy,
 * a lookup or bytes not in memory — goes to the app, which answers it in full and warms the caches.
 * Returns whether it answered.
 */
export function hotFileResponder(deps: HotFileDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { hosted, renditions, urls, headers, recorder, serving, trustProxy } = deps;
  const bodies = hosted.bodies;
  const offload = serving.offload;
  return (req, res) => {
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD') return false;
    const url = req.url ?? '';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const started = performance.now();
    const hostname = hostnameOf(req, trustProxy);
    const route = hostname === undefined ? undefined : hostedRouteOf(urls.hostRole(hostname), path);
    const original = route && hosted.peek(route.target);
    if (!route || !original || original.isPrivate) return false;
    // A rendition this process has served before; a new one, or a query it refuses, is the app's.
    const rendition = queryAt === -1 ? undefined : renditionOf(url.slice(queryAt + 1));
    if (rendition === null) return false;
    const served = rendition && renditions.peek(original, rendition, req.headers.accept);
    if (rendition && !served) return false;
    const file = served ? served.file : original;
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
    if (served?.variesByAccept) out.Vary = 'Accept';
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

/** The rendition a query asks for; null for one the app must answer (a signature, or a 400). */
function renditionOf(search: string): RenditionRequest | undefined | null {
  try {
    return search.includes('signature=') ? null : renditionRequestOfSearch(search);
  } catch {
    return null;
  }
}

/** The request's host name as the app reads it (Koa's ctx.hostname); undefined for what only the app parses (IPv6). */
function hostnameOf(req: IncomingMessage, trustProxy: boolean): string | undefined {
  const forwarded = trustProxy ? req.headers['x-forwarded-host'] : undefined;
  const host = (typeof forwarded === 'string' && forwarded ? forwarded.split(',', 1)[0]!.trim() : req.headers.host) ?? '';
  return host.startsWith('[') ? undefined : host.split(':', 1)[0];
}
