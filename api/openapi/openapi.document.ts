import { z } from 'zod';
import { createDocument, type ZodOpenApiPathsObject } from 'zod-openapi';
import { accessTokenSchema, createAccessTokenSchema, newAccessTokenSchema } from '../../shared/contracts/access-token.contract.js';
import { profileSchema, regeneratedKeySchema } from '../../shared/contracts/account.contract.js';
import { albumPageSchema, albumShareSchema } from '../../shared/contracts/album.contract.js';
import { ok } from '../../shared/contracts/common.contract.js';
import { connectionSchema } from '../../shared/contracts/connection.contract.js';
import { customDomainSchema, customDomainStateSchema } from '../../shared/contracts/custom-domain.contract.js';
import { dashboardSchema } from '../../shared/contracts/dashboard.contract.js';
import { dropLinkSchema } from '../../shared/contracts/drop-link.contract.js';
import { shareLinkSchema } from '../../shared/contracts/share-link.contract.js';
import { folderKeySchema, folderSchema } from '../../shared/contracts/folder.contract.js';
import { notificationListSchema } from '../../shared/contracts/notification.contract.js';
import { oembedSchema } from '../../shared/contracts/oembed.contract.js';
import { pollSchema } from '../../shared/contracts/poll.contract.js';
import { uploadConfigSchema, uploadResultSchema } from '../../shared/contracts/upload.contract.js';
import { settingsPatchSchema, settingsSchema } from '../../shared/contracts/settings.contract.js';
import { urlFormatSettingsSchema } from '../../shared/contracts/url-format.contract.js';
import * as hooks from '../../shared/contracts/webhook.contract.js';
import { RENDITION_FORMATS, RENDITION_QUALITIES, RENDITION_WIDTHS } from '../../shared/services/media/renditions/rendition-params.js';
import { createDropLinkSchema } from '../../shared/services/folders/drop-link.service.js';
import { createShareLinkSchema } from '../../shared/services/folders/share-link.service.js';
import { tokenConfigSchema, uploaderConfigSchema } from '../../shared/services/uploads/uploader-config.service.js';
import { urlFormatSchema } from '../routes/account.routes.js';
import { albumQuerySchema } from '../routes/album.routes.js';
import { loginSchema, registerSchema } from '../routes/auth.routes.js';
import { deleteQuerySchema } from '../routes/delete.routes.js';
import { waitSchema } from '../routes/drop-links.routes.js';
import { batchMoveSchema, dashboardQuerySchema, moveSchema, privacySchema, renameSchema } from '../routes/files.schemas.js';
import { defaultFolderSchema, newFolderSchema } from '../routes/folders.routes.js';
import { markReadSchema, voteSchema } from '../routes/notifications.routes.js';
import { oembedQuerySchema } from '../routes/oembed.routes.js';
import { uploadFormSchema, urlUploadSchema } from '../routes/upload.routes.js';
import { ANONYMOUS, type ErrorStatus, answer, body, json, keyOrWebsite, noAuth, op, path } from './operations.js';
import * as r from './responses.schemas.js';

// Request schemas are the routes' own objects; records come from shared/contracts, the other answers from responses.schemas.ts.

const renditionQuerySchema = z.object({
  w: z.enum(RENDITION_WIDTHS.map(String) as [string, ...string[]]).optional().meta({ description: 'Width in pixels (never wider than the original)' }),
  format: z.enum(RENDITION_FORMATS).optional().meta({ description: 'auto picks AVIF or WebP from Accept' }),
  q: z.enum(RENDITION_QUALITIES.map(String) as [string, ...string[]]).optional(),
});
const filename = path({ filename: z.string().meta({ description: 'Stored filename', example: 'Xk2P9aQm1z.png' }) });
const folderId = path({ id: z.uuid().meta({ description: 'Folder id' }) });
const webhookId = path({ id: z.uuid().meta({ description: 'Webhook endpoint id' }) });
const binaryFile = z.string().meta({ format: 'binary', description: 'The file (send it as `file` or as `image`, not both)' });
const multipartFile = (fields: z.ZodObject) => ({
  required: true,
  content: { 'multipart/form-data': { schema: fields.extend({ file: binaryFile.optional(), image: binaryFile.optional() }) } },
});

const uploadErrors: ErrorStatus[] = [400, 401, 403, 409, 413, 429, 502];
const ownFile: ErrorStatus[] = [401, 403, 404];

const paths: ZodOpenApiPathsObject = {
  '/api/ping': { get: op('Core', 'Liveness', answer('Alive', r.pingSchema), [], noAuth, 'static') },
  '/api/delete/{filename}': {
    get: op('Core', 'Delete with a link (account key or the file’s own token)', answer('Deleted', r.messageSchema), [400, 401, 403, 404], {
      ...filename,
      requestParams: { ...filename.requestParams, query: deleteQuerySchema },
      description: 'Give `token` (from an upload’s `deletionUrl`, this file only) or the account key as `apiKey` or x-api-key.',
      security: [{ apiKey: [] }, ANONYMOUS],
    }),
  },

  '/api/upload': {
    post: op(
      'Uploads',
      'Upload one file',
      {
        description: 'Stored (the URL works at once): the URL as text, or JSON with `?format=json` / `x-response-format: json`',
        content: { 'text/plain': { schema: z.url().meta({ example: 'http://alice.localhost:3000/Xk2P9aQm1z.png' }) }, 'application/json': { schema: ok(uploadResultSchema) } },
      },
      uploadErrors,
      {
        ...keyOrWebsite,
        description: 'A folder key (fk_…) files into its folder (Pro); the primary key into the default upload folder, else the root.',
        requestParams: {
          query: z.object({ format: z.enum(['json']).optional().meta({ description: 'json: answer with JSON' }) }),
          header: z.object({ 'x-response-format': z.enum(['json']).optional() }),
        },
        requestBody: multipartFile(uploadFormSchema),
      },
    ),
  },
  '/api/upload/url': {
    post: op('Uploads', 'Rehost a remote image', answer('Stored', ok(uploadResultSchema)), uploadErrors, { ...keyOrWebsite, ...body(urlUploadSchema) }),
  },
  '/api/upload/config': {
    get: op('Uploads', 'Expiry choices and size limits', answer('Upload configuration (no `success` field)', uploadConfigSchema), [], {
      description: 'An optional x-api-key makes `registered` the caller’s plan limit.',
      security: [{ apiKey: [] }, ANONYMOUS],
    }),
  },

  '/api/auth/captcha': { get: op('Accounts', 'A proof-of-work challenge', answer('Challenge (no `success` field)', r.captchaChallengeSchema), [], noAuth) },
  '/api/auth/register': { post: op('Accounts', 'Register', answer('Registered and signed in', ok(r.sessionSchema)), [400, 409, 429], { ...noAuth, ...body(registerSchema) }) },
  '/api/auth/login': { post: op('Accounts', 'Sign in', answer('Signed in', ok(r.sessionSchema)), [400, 401, 429], { ...noAuth, ...body(loginSchema) }) },
  '/api/auth/logout': { post: op('Accounts', 'End the session', answer('Signed out', r.messageSchema), [], { security: [{ bearer: [] }, ANONYMOUS] }) },
  '/api/auth/me': { get: op('Accounts', 'The profile', answer('Profile', ok(z.object({ user: profileSchema }))), [401, 403]) },

  '/api/album/{shareId}': {
    get: op('Albums', 'A shared album, one page', answer('Album page', ok(albumPageSchema)), [400, 404], {
      ...noAuth,
      requestParams: { path: z.object({ shareId: z.string() }), query: albumQuerySchema },
    }),
  },

  '/api/oembed': {
    get: op('Albums', 'oEmbed 1.0 for a pasted link: a public image (any URL style) or an album', answer('oEmbed (no `success` field)', oembedSchema), [400, 404, 501], {
      ...noAuth,
      requestParams: { query: oembedQuerySchema },
    }),
  },

  '/api/user/regenerate-api-key': { post: op('Accounts', 'New primary key (the old one is refused at once)', answer('New key', ok(regeneratedKeySchema)), [401, 403, 429]) },
  '/api/user/subdomain': {
    get: op('URL formats', 'URL style of new uploads', answer('Settings', ok(urlFormatSettingsSchema)), [401, 403]),
    post: op('URL formats', 'Choose the URL style of new uploads', answer('Chosen', ok(r.urlFormatChangedSchema)), [400, 401, 403], body(urlFormatSchema)),
  },
  '/api/user/settings': {
    get: op('Accounts', 'The account settings', answer('Settings', ok(settingsSchema)), [401, 403]),
    patch: op('Accounts', 'Change any of the account settings', answer('Settings', ok(settingsSchema)), [400, 401, 403], body(settingsPatchSchema)),
  },
  '/api/user/connections': {
    get: op('Connections', 'Connected AI assistants', answer('Connections', ok(z.object({ connections: z.array(connectionSchema) }))), [401, 403]),
  },
  '/api/user/connections/{clientId}': {
    delete: op('Connections', 'Disconnect an assistant (all its tokens)', answer('Disconnected', r.messageSchema), [401, 403, 404], path({ clientId: z.string().meta({ description: 'Percent-encoded (it may be a URL)' }) })),
  },
  '/api/user/custom-domain': {
    get: op('Custom domain', 'The custom domain and its DNS checks (Pro)', answer('Configuration', ok(customDomainStateSchema)), [401, 403]),
    // The service validates the name itself (normalizeDomain), so there is no route schema to share.
    post: op('Custom domain', 'Add a custom domain (Pro)', answer('Records to publish', ok(customDomainSchema)), [400, 401, 403, 409, 502], {
      requestBody: { required: true, ...json(z.object({ domain: z.string().meta({ example: 'img.example.com' }) })) },
    }),
    delete: op('Custom domain', 'Remove the custom domain (Pro)', answer('Removed', r.messageSchema), [401, 403, 404]),
  },
  '/api/user/custom-domain/verify': {
    post: op('Custom domain', 'Check the DNS records now (Pro)', answer('Configuration', ok(customDomainSchema)), [401, 403, 404, 502]),
  },
  '/api/user/uploader-config': {
    get: op(
      'Accounts',
      'A ready-made config for ShareX, Flameshot or curl',
      {
        description: 'A file to save (Content-Disposition: attachment) holding the chosen key',
        content: { 'application/json': { schema: z.record(z.string(), z.unknown()) }, 'text/x-shellscript': { schema: z.string() }, 'text/plain': { schema: z.string() } },
      },
      [400, 401, 403, 404],
      { requestParams: { query: uploaderConfigSchema } },
    ),
    post: op(
      'Accounts',
      'A ready-made config carrying a new upload-only access token',
      { description: 'As GET, with a new personal access token (files:write, named after the tool) instead of a key', content: { 'application/json': { schema: z.record(z.string(), z.unknown()) }, 'text/x-shellscript': { schema: z.string() }, 'text/plain': { schema: z.string() } } },
      [400, 401, 403],
      body(tokenConfigSchema),
    ),
  },
  '/api/user/tokens': {
    get: op('Access tokens', 'Personal access tokens, newest first (no secrets)', answer('Tokens', ok(z.array(accessTokenSchema))), [401, 403]),
    post: op('Access tokens', 'Create a personal access token (at most 50)', answer('The token, with its secret shown this once', ok(newAccessTokenSchema)), [400, 401, 403], body(createAccessTokenSchema)),
  },
  '/api/user/tokens/{id}': {
    delete: op('Access tokens', 'Revoke a token (at once, on every process)', answer('Revoked', r.messageSchema), [401, 403, 404], path({ id: z.uuid().meta({ description: 'Token id' }) })),
  },

  '/api/user/dashboard': {
    get: op('Files', 'Uploads, folders, folder keys, pagination', answer('One page', ok(dashboardSchema)), [400, 401, 403, 404], { requestParams: { query: dashboardQuerySchema } }),
  },
  '/api/user/images/move': {
    patch: op('Files', 'Move many files', answer('Moved (per-file failures in `errors`)', r.batchMovedSchema), [400, 401, 403, 404], body(batchMoveSchema)),
  },
  '/api/user/images/{filename}': { delete: op('Files', 'Delete a file', answer('Deleted', r.messageSchema), ownFile, filename) },
  '/api/user/images/{filename}/rename': {
    put: op('Files', 'Rename (the URL changes)', answer('Renamed', r.renamedSchema), [...ownFile, 400, 409], { ...filename, ...body(renameSchema) }),
  },
  '/api/user/images/{filename}/replace': {
    patch: op('Files', 'Replace the content (same name and URL)', answer('Replaced', ok(r.replacedSchema).extend({ message: z.string() })), [...ownFile, 400, 413, 502], {
      ...filename,
      requestBody: multipartFile(z.object({})),
    }),
  },
  '/api/user/images/{filename}/link': {
    get: op('Files', "The file's link, or a rendition's (w, format, q; signed when private)", answer('Link', r.fileLinkSchema), [...ownFile, 400, 422], {
      requestParams: { path: z.object({ filename: z.string() }), query: renditionQuerySchema },
    }),
  },
  '/api/user/images/{filename}/privacy': {
    patch: op('Files', 'Make private (signed links only) or public', answer('Set', ok(r.privacySetSchema)), [...ownFile, 400], { ...filename, ...body(privacySchema) }),
  },
  '/api/user/images/{filename}/move': {
    patch: op('Files', 'Move to a folder (null: root)', answer('Moved', r.messageSchema), [...ownFile, 400], { ...filename, ...body(moveSchema) }),
  },

  '/api/user/folders': {
    get: op('Folders', 'List folders', answer('Folders', ok(z.array(folderSchema))), [401, 403]),
    post: op('Folders', 'Create a folder', answer('Created', ok(folderSchema)), [400, 401, 403, 409], body(newFolderSchema)),
  },
  '/api/user/folders/{id}': { delete: op('Folders', 'Delete a folder (its files go to the root)', answer('Deleted', r.messageSchema), [401, 403, 404], folderId) },
  '/api/user/default-folder': {
    post: op('Folders', 'Where primary-key uploads land (null: root)', answer('Set', r.defaultFolderSetSchema), [400, 401, 403, 404], body(defaultFolderSchema)),
  },
  '/api/user/folder-keys': { get: op('Folder keys', 'List folder keys, newest first (Pro)', answer('Keys', ok(z.array(folderKeySchema))), [401, 403]) },
  '/api/user/folders/{id}/key': {
    post: op('Folder keys', 'Issue the folder’s key, replacing any (Pro)', answer('Issued', ok(folderKeySchema)), [401, 403, 404], folderId),
    delete: op('Folder keys', 'Revoke the folder’s key (Pro)', answer('Revoked', r.messageSchema), [401, 403, 404], folderId),
  },
  '/api/user/folders/{id}/share': {
    post: op('Albums', 'Share a folder as an album', answer('Shared', ok(albumShareSchema)), [401, 403, 404], folderId),
    delete: op('Albums', 'Stop sharing (the link is gone at once)', answer('Unshared', r.messageSchema), [401, 403, 404], folderId),
  },

  '/api/user/drop-links': {
    get: op('Drop links', 'List drop links', answer('Drop links', ok(z.object({ dropLinks: z.array(dropLinkSchema) }))), [401, 403]),
    post: op('Drop links', 'Ask someone for one file', answer('Created', ok(dropLinkSchema)), [400, 401, 403, 404], body(createDropLinkSchema)),
  },
  '/api/user/drop-links/{id}': {
    get: op('Drop links', 'One drop link; `wait` holds the request until a file arrives', answer('Drop link', ok(dropLinkSchema)), [400, 401, 403, 404], {
      requestParams: { path: z.object({ id: z.uuid() }), query: waitSchema },
    }),
    delete: op('Drop links', 'Cancel a drop link', answer('Cancelled', r.messageSchema), [401, 403, 404], path({ id: z.uuid() })),
  },
  '/api/user/share-links': {
    get: op('Share links', 'List share links, newest first', answer('Share links', ok(z.array(shareLinkSchema))), [401, 403]),
    post: op('Share links', 'Share one file or one folder (private files included) at {SITE_URL}/l/{token}', answer('Created', ok(shareLinkSchema)), [400, 401, 403, 404], body(createShareLinkSchema)),
  },
  '/api/user/share-links/{id}': {
    delete: op('Share links', 'Revoke a share link: 404 on every web process before this answers', answer('Revoked', r.messageSchema), [401, 403, 404], path({ id: z.uuid() })),
  },
  '/api/user/webhooks': {
    get: op('Webhooks', 'Webhook endpoints, newest first (no secrets)', answer('Endpoints', ok(z.array(hooks.webhookEndpointSchema))), [401, 403]),
    post: op('Webhooks', 'Add an endpoint (at most 10; a public http(s) URL)', answer('The endpoint, with its secret shown this once', ok(hooks.webhookEndpointWithSecretSchema)), [400, 401, 403], body(hooks.createWebhookSchema)),
  },
  '/api/user/webhooks/{id}': {
    patch: op('Webhooks', 'Change the URL, events, description, or turn it on or off', answer('Endpoint', ok(hooks.webhookEndpointSchema)), [400, 401, 403, 404], { ...webhookId, ...body(hooks.updateWebhookSchema) }),
    delete: op('Webhooks', 'Delete an endpoint and its deliveries', answer('Deleted', r.messageSchema), [401, 403, 404], webhookId),
  },
  '/api/user/webhooks/{id}/rotate-secret': {
    post: op('Webhooks', 'New signing secret: it alone signs every later delivery, at once', answer('The endpoint, with its new secret shown this once', ok(hooks.webhookEndpointWithSecretSchema)), [401, 403, 404], webhookId),
  },
  '/api/user/webhooks/{id}/test': {
    post: op('Webhooks', 'Send a webhook.test event now', answer('The queued delivery', ok(hooks.webhookDeliverySchema)), [401, 403, 404, 409], webhookId),
  },
  '/api/user/webhooks/{id}/deliveries': {
    get: op('Webhooks', 'The endpoint’s last 100 deliveries, newest first', answer('Deliveries', ok(z.array(hooks.webhookDeliverySchema))), [401, 403, 404], webhookId),
  },

  '/api/user/notifications': {
    get: op('Notifications', 'The 50 most recent and the unread count', answer('Notifications', ok(notificationListSchema)), [401, 403]),
  },
  '/api/user/notifications/read': {
    post: op('Notifications', 'Mark one read', answer('Marked', r.messageSchema), [400, 401, 403, 404], body(markReadSchema)),
  },
  '/api/user/notifications/stream': {
    get: op(
      'Notifications',
      'Live notifications (server-sent events)',
      {
        description:
          'An event stream: `event: notification` (data: a Notification) and `event: unread` (data: `{unreadCount}`); each carries an `id` to resume from with `Last-Event-ID`.',
        content: { 'text/event-stream': { schema: z.string().meta({ example: 'id: 7\nevent: unread\ndata: {"unreadCount":1}\n\n' }) } },
      },
      [401, 403],
      { requestParams: { header: z.object({ 'Last-Event-ID': z.string().optional().meta({ description: 'Replay what came after this event' }) }) } },
    ),
  },
  '/api/user/polls': { get: op('Polls', 'Polls, active first', answer('Polls', ok(z.object({ polls: z.array(pollSchema) }))), [401, 403]) },
  '/api/user/polls/vote': { post: op('Polls', 'Vote once', answer('Voted', r.votedSchema), [400, 401, 403, 404], body(voteSchema)) },

  '/api/openapi.json': {
    get: op('Docs', 'This document', answer('OpenAPI 3.1', z.record(z.string(), z.unknown())), [], noAuth, 'static'),
  },
  '/api/docs': {
    get: op('Docs', 'This reference, as a web page', { description: 'HTML', content: { 'text/html': { schema: z.string() } } }, [], noAuth, 'static'),
  },
  '/api/docs/{asset}': {
    get: op('Docs', 'A script or stylesheet of the docs page', { description: 'The asset', content: { 'text/javascript': { schema: z.string() }, 'text/css': { schema: z.string() } } }, [404], {
      ...noAuth,
      ...path({ asset: z.string() }),
    }, 'static'),
  },
};

/** The OpenAPI 3.1 document of every /api route, generated from the routes' own zod schemas. */
export function buildOpenApiDocument(baseUrl: string) {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Hosted File Service API',
      version: '1',
      description:
        'Errors always answer `{"success": false, "error": "…"}`, with `retryAfter` on 429 and 503 and `details` on validation failures.',
    },
    servers: [{ url: baseUrl }],
    security: [{ apiKey: [] }, { bearer: [] }],
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description: 'The account’s primary key (hfs_…); a personal access token (hfs_pat_…) on the routes its scopes cover; a folder key (fk_…) for uploads only',
        },
        bearer: { type: 'http', scheme: 'bearer', description: 'The sessionToken from POST /api/auth/login or /register, or a personal access token (hfs_pat_…)' },
      },
    },
    paths,
    // What the service sends to webhook endpoints (Standard Webhooks headers: webhook-id, webhook-timestamp, webhook-signature).
    webhooks: {
      event: {
        post: {
          summary: `One event: ${hooks.WEBHOOK_EVENT_TYPES.join(', ')}`,
          requestBody: { required: true, ...json(hooks.webhookEventBodySchema) },
          responses: { 200: { description: 'Any 2xx: delivered. 410 turns the endpoint off; anything else is retried later under the same webhook-id' } },
        },
      },
    },
  });
}
