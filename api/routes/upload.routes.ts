import { Router } from '@koa/router';
import { z } from 'zod';
import { expirySchema } from '../../shared/contracts/expiry.contract.js';
import { EXPIRY_OPTIONS } from '../../shared/contracts/values.js';
import type { UploadResult } from '../../shared/contracts/upload.contract.js';
import type { ReceivedBody, UploadService } from '../../shared/services/uploads/upload.service.js';
import { validate } from '../../shared/validation.js';
import { bearerOf } from '../middleware/auth.middleware.js';
import { uploadAuth } from '../middleware/upload-auth.middleware.js';
import { type AppContext, type AppState, uploaderOf } from '../state.js';
import { receiveSingleFile } from '../upload/receive-file.js';
import type { RouteDeps } from './route-deps.js';

export const urlUploadSchema = z.object({
  imageUrl: z.url({ protocol: /^https?$/, error: 'imageUrl must be an http or https URL' }),
  expiry: expirySchema,
  source: z.string().trim().min(1).max(32).default('url'),
});
// The multipart form's text fields; other fields are ignored.
export const uploadFormSchema = z.object({ expiry: expirySchema });

/** The form's fields arrive with its file, read once the file is stored: bad ones remove it again. */
async function formFields(uploads: UploadService, received: ReceivedBody, fields: unknown) {
  try {
    return validate(uploadFormSchema, fields);
  } catch (err) {
    await uploads.discard(received.objectKey);
    throw err;
  }
}

/** Plain-text URL by default; the spec's JSON with ?format=json or x-response-format: json. */
function respond(ctx: AppContext, result: UploadResult) {
  const isJson = (value: unknown) => typeof value === 'string' && value.toLowerCase() === 'json';
  const wantsJson = isJson(ctx.query.format) || isJson(ctx.get('x-response-format'));
  if (wantsJson) {
    ctx.body = { success: true, data: result };
  } else {
    ctx.type = 'text/plain';
    ctx.body = result.url;
  }
}

export function uploadRoutes(container: RouteDeps) {
  const { services, plans } = container;
  const router = new Router<AppState>({ prefix: '/upload' });

  router.get('/config', async (ctx) => {
    const key = ctx.get('x-api-key');
    const account = key ? (await services.credentials.byKey(key))?.principal : undefined;
    const free = plans.of('free').maxFileSize;
    ctx.body = {
      expiryOptions: EXPIRY_OPTIONS,
      maxFileSize: {
        anonymous: plans.anonymousMaxFileSize,
        free,
        pro: plans.of('pro').maxFileSize,
        registered: account ? plans.of(account.plan).maxFileSize : free,
      },
    };
  });

  router.post('/', uploadAuth(container), async (ctx) => {
    const uploader = uploaderOf(ctx);
    const { file, fields } = await receiveSingleFile(ctx, services.uploads, services.uploads.receiveOptionsFor(uploader.account));
    const { expiry } = await formFields(services.uploads, file.received, fields);
    const source = ctx.get('x-api-key') || bearerOf(ctx) ? 'api' : 'web';
    respond(ctx, await services.uploads.commit(uploader, file.received, { originalName: file.originalname, expiry, source }));
  });

  router.post('/url', uploadAuth(container), async (ctx) => {
    const uploader = uploaderOf(ctx);
    const input = validate(urlUploadSchema, ctx.request.body);
    const result = await services.urlUploads.request({
      accountId: uploader.account?.id ?? null,
      folderId: uploader.folderId,
      imageUrl: input.imageUrl,
      expiry: input.expiry,
      source: input.source,
    });
    ctx.body = { success: true, data: result };
  });

  return router;
}
