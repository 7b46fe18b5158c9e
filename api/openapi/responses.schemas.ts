import 'zod-openapi';
import { z } from 'zod';
import { EXPIRY_OPTIONS } from '../../shared/services/expiry.js';
import { MCP_SCOPE_NAMES } from '../../shared/services/oauth/oauth-scopes.js';
import { URL_FORMATS } from '../../shared/services/url-format.service.js';

// What the REST routes answer, as zod: the OpenAPI document is generated from these, and the
// tests check real answers against that document. The request side lives beside the routes.

const isoDate = z.iso.datetime().meta({ example: '2026-01-31T12:00:00.000Z' });
const uuid = z.uuid().meta({ example: '4fc9007e-1d0c-4fcf-a05c-0dac5ce46238' });
const bytes = z.number().int().min(0);
const count = z.number().int().min(0);

export const errorBodySchema = z
  .object({
    success: z.literal(false),
    error: z.string().meta({ description: 'What went wrong, for people' }),
    retryAfter: z.number().int().min(1).optional().meta({ description: 'Seconds to wait before retrying (429 and 503; also sent as Retry-After)' }),
    details: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'Each invalid field of a 400 from request validation' }),
    requestId: z.string().optional().meta({ description: 'Correlation id of an unexpected failure, as logged' }),
  })
  .meta({ id: 'ErrorBody', description: 'The one error body of every /api route', example: { success: false, error: 'Invalid API key' } });

/** `{success: true, data}` — most answers. */
export const ok = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });

export const messageSchema = z
  .object({ success: z.literal(true), message: z.string() })
  .meta({ id: 'Message', example: { success: true, message: 'File deleted' } });

export const uploadResultSchema = z
  .object({
    url: z.url().meta({ description: 'The hosted URL, working at once' }),
    filename: z.string().meta({ description: 'Stored name (may differ from the local name)' }),
    originalFilename: z.string(),
    mimeType: z.string(),
    sizeBytes: bytes,
    expiry: z.enum(['1h', '6h', '1d', '7d', '30d']).nullable(),
    deletionUrl: z.url().meta({ description: 'GET it to delete this file; it carries the file’s own token, not the account key' }),
  })
  .meta({
    id: 'UploadResult',
    example: {
      url: 'http://alice.localhost:3000/Xk2P9aQm1z.png',
      filename: 'Xk2P9aQm1z.png',
      originalFilename: 'cat.png',
      mimeType: 'image/png',
      sizeBytes: 48213,
      expiry: '1d',
      deletionUrl: 'http://localhost:3000/api/delete/Xk2P9aQm1z.png?token=…',
    },
  });

export const uploadConfigSchema = z
  .object({
    expiryOptions: z.array(z.object({ value: z.enum(EXPIRY_OPTIONS.map((o) => o.value)), label: z.string() })),
    maxFileSize: z.object({ anonymous: bytes, free: bytes, pro: bytes, registered: bytes.meta({ description: "The caller's plan (free without a key)" }) }),
  })
  .meta({ id: 'UploadConfig' });

const limitsSchema = z.object({ dailyLimit: count, monthlyStorageLimit: bytes.meta({ description: 'bytes' }) }).meta({ id: 'Limits' });
const usageSchema = z.object({ count, lastUsed: isoDate, monthlyStorageUsed: bytes, currentMonth: z.string().regex(/^\d{4}-\d{2}$/) });

/** The user object of login and registration answers, and the base of the others. */
const accountSummaryShape = {
  id: uuid,
  username: z.string(),
  email: z.string().meta({ description: 'Empty when none was given' }),
  apiKey: z.string().meta({ description: 'The primary key (hfs_…)', example: 'hfs_7e93f6b4f5be3fc447fbf084d47fe02ade0b95f21dafbce0' }),
  createdAt: isoDate,
  plan: z.enum(['free', 'pro']),
  uploadsFolder: z.string(),
  limits: limitsSchema,
};
export const accountSummarySchema = z.object(accountSummaryShape).meta({ id: 'AccountSummary' });
const accountStatus = z.enum(['active', 'banned']);

export const profileSchema = z
  .object({
    ...accountSummaryShape,
    status: accountStatus,
    usage: usageSchema,
    defaultUploadFolderId: uuid.nullable(),
    features: z.object({ subdomain: z.boolean(), shortUrl: z.boolean(), folders: z.boolean() }),
    customDomain: z.string().nullable(),
    customDomainStatus: z.enum(['none', 'pending', 'active', 'failed']),
  })
  .meta({ id: 'Profile' });

export const sessionSchema = z.object({ user: accountSummarySchema, sessionToken: z.string().meta({ description: 'Send as Authorization: Bearer <sessionToken>' }) }).meta({ id: 'Session' });

export const captchaChallengeSchema = z
  .object({ algorithm: z.string(), challenge: z.string(), maxnumber: count, salt: z.string(), signature: z.string() })
  .meta({ id: 'CaptchaChallenge', description: 'An ALTCHA proof-of-work challenge; the encoded solution is the captchaToken' });

export const regeneratedKeySchema = z
  .object({ apiKey: z.string(), limits: limitsSchema, regenerationInfo: z.object({ remainingThisMonth: count, lastRegeneration: isoDate.nullable() }) })
  .meta({ id: 'RegeneratedKey' });

export const urlFormatSettingsSchema = z
  .object({ format: z.enum(URL_FORMATS), subdomainUrl: z.url(), standardUrl: z.url(), customDomainActive: z.boolean(), customDomainUrl: z.url().nullable() })
  .meta({ id: 'UrlFormatSettings' });
export const urlFormatChangedSchema = z.object({ format: z.enum(URL_FORMATS), message: z.string() });

export const fileRecordSchema = z
  .object({
    filename: z.string(),
    originalName: z.string(),
    url: z.url(),
    timestamp: isoDate.meta({ description: 'Upload time' }),
    updatedAt: isoDate.nullable().meta({ description: 'Set by replace' }),
    size: bytes,
    folderId: uuid.nullable().meta({ description: 'null: the root library' }),
    source: z.string().meta({ example: 'api' }),
    isPrivate: z.boolean(),
    mimeType: z.string(),
    expiry: z.enum(['1h', '6h', '1d', '7d', '30d']).nullable().meta({ description: 'The expiry chosen at upload' }),
    expiresAt: isoDate.nullable(),
    moderationState: z.enum(['pending', 'allowed', 'flagged', 'blocked']).meta({
      description: 'pending: not judged yet; allowed: allowed, released by an administrator, or not a kind that is judged; flagged: marked for review; blocked: quarantined',
    }),
    thumbnailUrl: z.url().nullable().meta({ description: 'Small WebP (256 px on the long side) while the file has one and is served; a private file’s only for its signed-in owner' }),
    previewUrl: z.url().nullable().meta({ description: 'Larger WebP (1280 px on the long side), on the same terms' }),
  })
  .meta({ id: 'FileRecord', description: 'An upload as the dashboard lists it' });

export const folderSchema = z
  .object({ id: uuid, name: z.string().max(40), userId: uuid, createdAt: isoDate, fileCount: count, shared: z.boolean(), shareUrl: z.url().nullable() })
  .meta({ id: 'Folder' });

export const folderKeySchema = z
  .object({
    id: uuid,
    folderId: uuid,
    userId: uuid,
    apiKey: z.string().regex(/^fk_[0-9a-f]{6}_[0-9a-f]{32}$/),
    createdAt: isoDate,
    lastUsedAt: isoDate.nullable(),
    folderName: z.string(),
  })
  .meta({ id: 'FolderKey' });

const connectionState = z.object({ connected: z.boolean(), username: z.string().nullable() });
export const dashboardSchema = z
  .object({
    user: z.object({
      ...accountSummaryShape,
      status: accountStatus,
      usage: usageSchema.extend({ todayCount: count, remaining: count }),
      connections: z.object({ discord: connectionState, google: connectionState }),
      defaultUploadFolderId: uuid.nullable(),
      banInfo: z.object({ reason: z.string().nullable(), bannedAt: isoDate.nullable(), expiresAt: isoDate.nullable() }).nullable(),
    }),
    uploads: z.array(fileRecordSchema),
    folders: z.array(folderSchema),
    folderKeys: z.array(folderKeySchema).meta({ description: 'Empty unless Pro' }),
    pagination: z.object({
      currentPage: count,
      totalPages: count,
      totalUploads: count,
      totalUserFiles: count,
      limit: count,
      hasNextPage: z.boolean(),
      hasPrevPage: z.boolean(),
    }),
  })
  .meta({ id: 'Dashboard' });

export const renamedSchema = z.object({ success: z.literal(true), message: z.string(), oldFilename: z.string(), newFilename: z.string(), newUrl: z.url() });
export const replacedSchema = z.object({ filename: z.string(), url: z.url(), mimeType: z.string(), sizeBytes: bytes, oldSizeBytes: bytes, updatedAt: isoDate });
export const privacySetSchema = z.object({ filename: z.string(), isPrivate: z.boolean(), url: z.url() });
export const batchMovedSchema = z.object({
  success: z.literal(true),
  moved: z.array(z.string()),
  errors: z.array(z.object({ filename: z.string(), error: z.string() })).meta({ description: 'Files not found or not owned; the answer is still 200' }),
  message: z.string(),
});
export const defaultFolderSetSchema = z.object({ success: z.literal(true), defaultUploadFolderId: uuid.nullable() });
export const albumShareSchema = z.object({ shareId: z.string(), url: z.url(), sharedAt: isoDate }).meta({ id: 'AlbumShare' });

const albumFileSchema = z.object({
  filename: z.string(),
  url: z.url(),
  mimeType: z.string(),
  sizeBytes: bytes,
  createdAt: isoDate,
  thumbnail: z
    .object({ url: z.url(), width: count, height: count })
    .nullable()
    .meta({ description: 'The small WebP thumbnail and its size, once made (images, GIFs, videos)' }),
});
export const albumPageSchema = z
  .object({
    shareId: z.string(),
    name: z.string(),
    owner: z.string(),
    url: z.url(),
    downloadUrl: z.url().meta({ description: 'The whole album as one zip' }),
    files: z.array(albumFileSchema),
    page: count,
    totalPages: count,
    totalFiles: count,
  })
  .meta({ id: 'AlbumPage' });

export const notificationSchema = z
  .object({
    id: uuid,
    userId: uuid,
    type: z.string(),
    title: z.string(),
    message: z.string(),
    read: z.boolean(),
    data: z.record(z.string(), z.unknown()).meta({ example: { link: 'https://example.com', linkText: 'Open' } }),
    broadcastId: uuid.nullable(),
    timestamp: isoDate,
  })
  .meta({ id: 'Notification' });
export const notificationListSchema = z.object({ notifications: z.array(notificationSchema).max(50), unreadCount: count });

const pollOptionSchema = z.object({ id: uuid, text: z.string(), voteCount: count });
const pollCore = { id: uuid, question: z.string(), status: z.enum(['active', 'closed']), totalVotes: count, userVote: uuid.nullable(), options: z.array(pollOptionSchema) };
export const pollSchema = z
  .object({
    ...pollCore,
    description: z.string(),
    targetType: z.enum(['all', 'user']),
    targetUserId: uuid.nullable(),
    targetUsername: z.string().nullable(),
    createdAt: isoDate,
    closedAt: isoDate.nullable(),
  })
  .meta({ id: 'Poll' });
export const votedSchema = z.object({ success: z.literal(true), poll: z.object(pollCore) });

export const connectionSchema = z
  .object({
    clientId: z.string(),
    clientName: z.string().nullable(),
    clientUri: z.string().nullable(),
    scopes: z.array(z.enum(MCP_SCOPE_NAMES)),
    connectedAt: isoDate,
    lastUsedAt: isoDate.nullable(),
  })
  .meta({ id: 'Connection', description: 'An AI assistant (OAuth client) connected to the account' });

const sslValidationRecord = z.object({ txt_name: z.string(), txt_value: z.string() });
const customDomainConfigured = z.object({
  customDomain: z.string(),
  customDomainStatus: z.enum(['pending', 'active', 'failed']),
  providerStatus: z.string(),
  sslStatus: z.string(),
  txtRecordName: z.string(),
  txtRecordValue: z.string(),
  sslValidationRecords: z.array(sslValidationRecord),
  cnameTarget: z.string(),
  dnsChecks: z.record(z.string(), z.boolean()).meta({ example: { cname: true, txt_val: true, ssl_val_0: false } }),
  records: z.array(z.object({ type: z.enum(['CNAME', 'TXT']), name: z.string(), expected: z.string(), seen: z.array(z.string()), ok: z.boolean() })),
  problems: z.array(z.string()),
  lastCheckedAt: isoDate.nullable(),
  nextCheckAt: isoDate.nullable(),
  certificateExpiresAt: isoDate.nullable(),
});
export const customDomainSchema = customDomainConfigured.meta({ id: 'CustomDomain' });
export const customDomainStateSchema = z
  .union([z.object({ customDomain: z.null(), customDomainStatus: z.literal('none'), cnameTarget: z.string() }), customDomainSchema])
  .meta({ id: 'CustomDomainState', description: 'No domain yet, or its configuration with the last DNS checks' });

export const dropLinkSchema = z
  .object({
    id: uuid,
    url: z.url().meta({ description: 'The page where someone without an account drops one file' }),
    status: z.enum(['pending', 'received', 'expired']),
    note: z.string().nullable(),
    folderId: uuid.nullable(),
    maxSizeBytes: bytes.nullable(),
    expiresAt: isoDate,
    createdAt: isoDate,
    receivedAt: isoDate.nullable(),
    file: fileRecordSchema.nullable(),
  })
  .meta({ id: 'DropLink' });

export const pingSchema = z.object({ success: z.literal(true), message: z.literal('pong') });
