import { z } from 'zod';
import { accountSummarySchema } from '../../shared/contracts/account.contract.js';
import { bytes, count, isoDate, sha256Hex, uuid } from '../../shared/contracts/common.contract.js';
import { fileRecordSchema } from '../../shared/contracts/file.contract.js';
import { pollResultsSchema } from '../../shared/contracts/poll.contract.js';
import { URL_FORMATS } from '../../shared/contracts/values.js';

// The REST answers that are not records of their own (envelopes, confirmations), as zod. The records
// come from shared/contracts; the OpenAPI document is generated from both, and the tests check real
// answers against that document. The request side lives beside the routes.

export const messageSchema = z
  .object({ success: z.literal(true), message: z.string() })
  .meta({ id: 'Message', example: { success: true, message: 'File deleted' } });

export const sessionSchema = z.object({ user: accountSummarySchema, sessionToken: z.string().meta({ description: 'Send as Authorization: Bearer <sessionToken>' }) }).meta({ id: 'Session' });

export const captchaChallengeSchema = z
  .object({ algorithm: z.string(), challenge: z.string(), maxnumber: count, salt: z.string(), signature: z.string() })
  .meta({ id: 'CaptchaChallenge', description: 'An ALTCHA proof-of-work challenge; the encoded solution is the captchaToken' });

export const urlFormatChangedSchema = z.object({ format: z.enum(URL_FORMATS), message: z.string() });

export const renamedSchema = z.object({ success: z.literal(true), message: z.string(), oldFilename: z.string(), newFilename: z.string(), newUrl: z.url() });
export const replacedSchema = z.object({ filename: z.string(), url: z.url(), mimeType: z.string(), sizeBytes: bytes, sha256: sha256Hex, oldSizeBytes: bytes, updatedAt: isoDate });
export const privacySetSchema = fileRecordSchema.pick({ filename: true, isPrivate: true, url: true, thumbnailUrl: true, previewUrl: true });
export const batchMovedSchema = z.object({
  success: z.literal(true),
  moved: z.array(z.string()),
  errors: z.array(z.object({ filename: z.string(), error: z.string() })).meta({ description: 'Files not found or not owned; the answer is still 200' }),
  message: z.string(),
});
export const defaultFolderSetSchema = z.object({ success: z.literal(true), defaultUploadFolderId: uuid.nullable() });
export const votedSchema = z.object({ success: z.literal(true), poll: pollResultsSchema });
export const pingSchema = z.object({ success: z.literal(true), message: z.literal('pong') });

export const fileLinkSchema = z.object({ success: z.literal(true), url: z.url().meta({ description: "The file's URL, or its rendition's; signed (with the parameters) when the file is private" }) });
