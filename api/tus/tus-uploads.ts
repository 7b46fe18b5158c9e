import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { Server, type Upload } from '@tus/server';
import { HEADERS } from '@tus/utils';
import type { Redis } from 'ioredis';
import type { Middleware } from 'koa';
import type { Container } from '../../shared/container.js';
import { AppError, isAppError } from '../../shared/errors.js';
import { PLAN_NAMES } from '../../shared/plans.js';
import { expirySchema } from '../../shared/contracts/expiry.contract.js';
import type { UploadResult } from '../../shared/contracts/upload.contract.js';
import type { OpenDrop } from '../../shared/services/folders/drop-link.service.js';
import { RedisLocker } from '../../shared/services/uploads/redis-locker.js';
import { withChunkDigest } from '../../shared/storage/index.js';
import { type IdentifiedUploader, identifyUploader } from '../middleware/upload-auth.middleware.js';
import type { AppContext, AppState } from '../state.js';

export const TUS_PATH = '/api/uploads';
// Where the finished upload's hosted URL travels on the last PATCH (and on HEAD afterwards).
const HOSTED_URL_HEADER = 'X-Hosted-Url';
const OWNER_KEY = 'hfsowner';
// A drop link's token: its stranger uploads into the link (the MCP drop zone sends big files so), under the link's rules.
const DROP_TOKEN_HEADER = 'X-Drop-Token';
const CHECKSUM_ALGORITHM = 'sha256';
// Clients on any origin (tus-js-client, Uppy on someone's site) send their key and read the hosted URL.
// No credentials: the anonymous website upload rides on a cookie and works from the site's own origin only.
const CORS = { allowedHeaders: ['X-Api-Key', 'Upload-Checksum', DROP_TOKEN_HEADER], exposedHeaders: [HOSTED_URL_HEADER], allowedCredentials: false };
// What tus answers itself (any origin, as `allowedOrigins` is unset), for the answers of ours around it.
const CORS_HEADERS = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': [...HEADERS, ...CORS.exposedHeaders].join(', ') };

type TusError = { status_code: number; body: string };
type TusCaller = IdentifiedUploader & { drop?: OpenDrop };

/** A refusal of ours in tus's shape, with the spec's error body. */
function tusError(err: unknown): TusError {
  if (isAppError(err) && err.expose) return { status_code: err.status, body: JSON.stringify({ success: false, error: err.message, ...err.extra }) };
  throw err;
}

/**
 * Resumable uploads (tus 1.0, `@tus/server`) at /api/uploads, beside the one-request upload and with
 * its rules: the same callers, limits checked at creation, the same upload pipeline at the end. Any
 * web process can continue any upload (state and locks in Redis).
 */
export function tusUploads(container: Container, subscriber: Redis): { middleware: Middleware<AppState>; close(): Promise<void> } {
  const { services, config, redis, box, plans } = container;
  const caller = new AsyncLocalStorage<TusCaller>();
  const current = () => {
    const identified = caller.getStore();
    if (!identified) throw new Error('tus request outside its caller');
    return identified;
  };
  // An upload belongs to whoever created it: an account, one anonymous website visitor, or a drop link's stranger.
  const ownerOf = ({ uploader, visitor, drop }: TusCaller) => box.sign(`tus-owner:${drop ? `drop:${drop.linkId}` : (uploader.account?.id ?? `visitor:${visitor}`)}`);
  const identify = async (ctx: AppContext): Promise<TusCaller> => {
    const token = ctx.get(DROP_TOKEN_HEADER);
    if (!token) return identifyUploader(ctx, container);
    const drop = await services.dropLinks.open(token);
    return { uploader: drop.uploader, drop };
  };
  const datastore = container.tusStore;
  const discoveryMaxBytes = Math.max(plans.anonymousMaxFileSize, ...PLAN_NAMES.map((plan) => plans.of(plan).maxFileSize));
  const locker = new RedisLocker({ redis, subscriber, prefix: `${config.redisPrefix}:tus-lock` });

  const server = new Server({
    path: TUS_PATH,
    datastore,
    locker,
    respectForwardedHeaders: config.trustProxy,
    namingFunction: () => randomUUID(),
    ...CORS,
    // OPTIONS (discovery, preflights) comes without a caller: it names the largest size any caller may
    // send; each caller's own limit is applied when an upload is created (413).
    maxSize: (req) => (req.method === 'OPTIONS' ? discoveryMaxBytes : (current().drop?.maxBytes ?? services.uploads.maxBytesFor(current().uploader.account))),
    async onUploadCreate(_req, upload) {
      try {
        validateExpiry(upload);
      } catch (err) {
        throw tusError(err);
      }
      return { metadata: { ...upload.metadata, [OWNER_KEY]: ownerOf(current()) } };
    },
    async onIncomingRequest(req, id) {
      if (req.method === 'POST' || req.method === 'OPTIONS') return;
      const upload = await datastore.getUpload(id).catch(() => undefined);
      // Another caller's upload is not there for this one (404, never 403).
      if (upload && upload.metadata?.[OWNER_KEY] !== ownerOf(current())) throw { status_code: 404, body: JSON.stringify({ success: false, error: 'Upload not found' }) };
    },
    async onUploadFinish(_req, upload) {
      let result: UploadResult;
      try {
        const body = await datastore.read(upload.id);
        const originalName = upload.metadata?.filename ?? upload.metadata?.name ?? undefined;
        const { uploader, drop } = current();
        result = drop
          ? await services.dropLinks.receive(drop, body, originalName)
          : await services.uploads.upload(uploader, body, { originalName, expiry: validateExpiry(upload), source: 'tus' });
      } catch (err) {
        await datastore.remove(upload.id).catch(() => undefined);
        throw tusError(err);
      }
      await services.tusResults.save(ownerOf(current()), upload.id, result);
      // The bytes now live in storage as a file: the upload's own copy goes before the answer, so a
      // process stopped right after cannot leave it behind (a finished upload is past the expiry sweep).
      await datastore.remove(upload.id).catch((err: unknown) => container.logger.warn({ err, id: upload.id }, 'finished tus upload not removed'));
      return { headers: { [HOSTED_URL_HEADER]: result.url } };
    },
    onResponseError(_req, err) {
      if ('status_code' in err) return undefined;
      // A fault of ours inside tus: logged, and answered without internals.
      container.logger.error({ err }, 'tus request failed');
      return { status_code: 500, body: JSON.stringify({ success: false, error: 'Internal server error' }) };
    },
  });

  const middleware: Middleware<AppState> = async (ctx, next) => {
    if (ctx.path !== TUS_PATH && !ctx.path.startsWith(`${TUS_PATH}/`)) return next();
    ctx.state.route = `${TUS_PATH}/*`;
    ctx.set(CORS_HEADERS);
    if (ctx.method === 'OPTIONS') {
      // The checksum extension's one algorithm (the store lists `checksum` in Tus-Extension).
      ctx.set('Tus-Checksum-Algorithm', CHECKSUM_ALGORITHM);
      ctx.respond = false;
      return server.handle(ctx.req, ctx.res);
    }
    const identified = await identify(ctx);
    const resultMatch = /^\/api\/uploads\/([^/]+)\/result$/.exec(ctx.path);
    const id = resultMatch?.[1] ?? ctx.path.slice(TUS_PATH.length + 1);
    if (id && (resultMatch || ctx.method === 'HEAD')) {
      // A finished upload (its store copy is gone), to its uploader only: HEAD says it is complete, GET …/result gives the JSON.
      const result = await services.tusResults.find(ownerOf(identified), id);
      if (result) {
        if (resultMatch) return (ctx.body = { success: true, data: result });
        ctx.set({ 'Tus-Resumable': '1.0.0', 'Upload-Offset': String(result.sizeBytes), 'Upload-Length': String(result.sizeBytes), [HOSTED_URL_HEADER]: result.url, 'Cache-Control': 'no-store' });
        ctx.status = 200;
        return;
      }
      if (resultMatch) return notFound(ctx);
    }
    // Creation is the upload's way in: admitted there (rate, plan, quota) before any byte is sent.
    if (ctx.method === 'POST') await services.uploads.admit(identified.uploader, { via: identified.drop ? 'drop' : 'upload', ip: ctx.ip });
    const digest = ctx.method === 'PATCH' ? chunkDigestOf(ctx.get('upload-checksum')) : undefined;
    ctx.respond = false;
    const handle = () => server.handle(ctx.req, ctx.res);
    await caller.run(identified, () => (digest ? withChunkDigest(digest, handle) : handle()));
  };

  return { middleware, close: async () => locker.close() };
}

function notFound(ctx: AppContext) {
  ctx.status = 404;
  ctx.body = { success: false, error: 'Upload not found' };
}

/** The SHA-256 a PATCH's `Upload-Checksum: sha256 <base64>` names (none: unchecked); any other algorithm is 400. */
function chunkDigestOf(header: string): Buffer | undefined {
  if (!header) return undefined;
  const [algorithm, value = '', ...rest] = header.trim().split(/\s+/);
  if (algorithm !== CHECKSUM_ALGORITHM || rest.length > 0) throw AppError.badRequest(`Upload-Checksum: only ${CHECKSUM_ALGORITHM} is supported`);
  const digest = Buffer.from(value, 'base64');
  if (digest.length !== 32 || digest.toString('base64') !== value) throw AppError.badRequest('Upload-Checksum: the sha256 digest is not 32 bytes of base64');
  return digest;
}

/** The expiry a client sets in Upload-Metadata (`expiry`: 1h … 30d, or none). */
function validateExpiry(upload: Upload) {
  const parsed = expirySchema.safeParse(upload.metadata?.expiry ?? null);
  if (!parsed.success) throw AppError.badRequest(parsed.error.issues[0]?.message ?? 'expiry is not valid');
  return parsed.data;
}
