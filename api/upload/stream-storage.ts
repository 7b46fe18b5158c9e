import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type koaMulter from '@koa/multer';
import multer from 'multer';
import { AppError, isAppError } from '../../shared/errors.js';
import type { ReceivedBody, ReceiveOptions, UploadService } from '../../shared/services/uploads/upload.service.js';
import { isMalformedBody } from './body-errors.js';

export const FILE_FIELDS = ['file', 'image'];

/** A file part as multer hands it to the engine (the stream is not in @koa/multer's types). */
type IncomingPart = koaMulter.File & { stream: Readable };
export type ReceivedFile = koaMulter.File & { received: ReceivedBody };

const cutShort = () => AppError.badRequest('The upload was cut short or malformed; nothing was saved');

/**
 * A multer storage engine that streams each file part straight into object storage (no memory
 * buffer, no temp copy); multer calls _removeFile for stored parts when the request fails later.
 */
export class StreamStorage implements koaMulter.StorageEngine {
  constructor(
    private readonly uploads: UploadService,
    private readonly options: Pick<ReceiveOptions, 'maxBytes' | 'stripMetadata'>,
  ) {}

  _handleFile(_req: IncomingMessage, file: koaMulter.File, callback: (error?: unknown, info?: koaMulter.File) => void) {
    const { stream, fieldname } = file as IncomingPart;
    if (!FILE_FIELDS.includes(fieldname)) {
      stream.resume();
      callback(new multer.MulterError('LIMIT_UNEXPECTED_FILE', fieldname));
      return;
    }
    this.uploads.receive(stream, this.options).then(
      (received) => callback(null, { received, size: received.size } as Partial<ReceivedFile> as koaMulter.File),
      // The part itself failed (cut short, malformed): the sender's mistake, not storage's.
      (err: unknown) => callback(isAppError(err) && isMalformedBody(err.cause) ? cutShort() : err),
    );
  }

  _removeFile(_req: IncomingMessage, file: koaMulter.File, callback: (error: Error) => void) {
    const { received } = file as Partial<ReceivedFile>;
    const done = callback as (error: Error | null) => void;
    if (!received) return done(null);
    this.uploads.discard(received.objectKey).then(() => done(null), done);
  }
}
