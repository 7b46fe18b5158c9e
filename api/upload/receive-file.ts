import multer from '@koa/multer';
import { AppError } from '../../shared/errors.js';
import type { ReceiveOptions, UploadService } from '../../shared/services/uploads/upload.service.js';
import { isStorableValue, unstorableText } from '../../shared/text-hygiene.js';
import type { AppContext } from '../state.js';
import { parseMultipart } from './parse-multipart.js';
import { type ReceivedFile, StreamStorage } from './stream-storage.js';

const MULTIPART_LIMITS = { files: 1, fields: 10, fieldSize: 1024, parts: 12 };
// Larger buffers between the socket, busboy and the file stream cut per-chunk overhead on big files.
const STREAM_BUFFERS = { highWaterMark: 1024 * 1024, fileHwm: 1024 * 1024 };

/**
 * Parses a multipart body holding exactly one file (field `file` or `image`), streaming the file into
 * storage as it arrives. Returns the stored body and the form's text fields.
 */
export async function receiveSingleFile(ctx: AppContext, uploads: UploadService, receiving: Pick<ReceiveOptions, 'maxBytes' | 'stripMetadata'>) {
  if (!ctx.is('multipart')) throw AppError.badRequest('The body must be multipart/form-data');
  const storage = new StreamStorage(uploads, receiving);
  // Browsers send UTF-8 file names without saying so; busboy would read them as latin1.
  const options = { storage, limits: MULTIPART_LIMITS, defParamCharset: 'utf8', ...STREAM_BUFFERS } as multer.Options;
  await parseMultipart(ctx, multer(options).any(), () => AppError.storageUnavailable());
  const [file] = (ctx.files ?? []) as ReceivedFile[];
  if (!file) throw AppError.badRequest('No file: send one file in the field "file" or "image"');
  const fields = (ctx.request.body ?? {}) as Record<string, unknown>;
  // The form's text is checked once the body is parsed, when the file is stored already.
  if (!isStorableValue({ fields, name: file.originalname })) {
    await uploads.discard(file.received.objectKey);
    throw unstorableText();
  }
  return { file, fields };
}
