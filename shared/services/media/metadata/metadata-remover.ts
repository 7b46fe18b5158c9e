import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { Readable, Transform } from 'node:stream';
import { promisify } from 'node:util';
import { AppError } from '../../../errors.js';
import type { Logger } from '../../../logger.js';
import { ByteLimit } from '../../../storage/byte-limit.js';
import { withTempFile } from '../media-source.js';
import { metadataStripperFor } from './metadata-stripper.js';

const run = promisify(execFile);

type Tool = 'ffmpeg' | 'exiftool';

/**
 * Containers whose metadata a maintained tool removes from a temporary file, without re-encoding:
 * ffmpeg copies MP4/MOV streams into a new container without the global, stream and chapter
 * metadata (location, make, model, creation tool); exiftool deletes HEIC/HEIF/AVIF's EXIF and XMP
 * items, leaving the image items and their properties (rotation, colour profile) as they are.
 */
const CONTAINERS: Record<string, { tool: Tool; args: (input: string, output: string) => string[] }> = {
  'video/mp4': { tool: 'ffmpeg', args: (i, o) => ffmpegCopy(i, o, 'mp4') },
  'video/x-m4v': { tool: 'ffmpeg', args: (i, o) => ffmpegCopy(i, o, 'mp4') },
  'video/quicktime': { tool: 'ffmpeg', args: (i, o) => ffmpegCopy(i, o, 'mov') },
  'image/heic': { tool: 'exiftool', args: exiftoolDeleteAll },
  'image/heic-sequence': { tool: 'exiftool', args: exiftoolDeleteAll },
  'image/heif': { tool: 'exiftool', args: exiftoolDeleteAll },
  'image/heif-sequence': { tool: 'exiftool', args: exiftoolDeleteAll },
  'image/avif': { tool: 'exiftool', args: exiftoolDeleteAll },
};

// Video and audio only (timed metadata tracks can carry a position too); bitexact: no encoder tag.
function ffmpegCopy(input: string, output: string, format: string): string[] {
  return ['-hide_banner', '-loglevel', 'error', '-i', input, '-map', '0:v?', '-map', '0:a?', '-c', 'copy',
    '-map_metadata', '-1', '-map_chapters', '-1', '-fflags', '+bitexact', '-f', format, output];
}

function exiftoolDeleteAll(input: string, output: string): string[] {
  return ['-q', '-q', '-all=', '-o', output, input];
}

/** `body` piped, not pipelined, through `transform`: a failed transform leaves the body readable, so it can be drained. */
function through(body: Readable, transform: Transform): Readable {
  body.once('error', (err) => transform.destroy(err));
  return body.pipe(transform);
}

export interface RemovalOptions {
  maxBytes: number;
  signal?: AbortSignal | undefined;
}

/**
 * Removes the metadata of an upload on its way to storage: JPEG, PNG, WebP and GIF streamed through
 * our own strippers, the containers above through a temporary file bounded by the plan's size. A
 * tool missing on this machine is reported once at start, and its types are then stored as sent.
 */
export class MetadataRemover {
  private readonly available: Promise<Set<Tool>>;

  constructor(logger: Logger) {
    this.available = probeTools(logger);
  }

  /** Hands `store` the body without its metadata (as it came, for types without any handling). */
  async remove<T>(mime: string, body: Readable, options: RemovalOptions, store: (body: Readable) => Promise<T>): Promise<T> {
    const stripper = metadataStripperFor(mime);
    if (stripper) {
      return store(through(body, stripper));
    }
    const container = CONTAINERS[mime];
    if (!container || !(await this.available).has(container.tool)) return store(body);
    return withTempFile(through(body, new ByteLimit(options.maxBytes)), options.signal, async (input) => {
      const output = path.join(path.dirname(input), 'stripped');
      try {
        await run(container.tool, container.args(input, output), options.signal ? { signal: options.signal } : {});
      } catch {
        // As with the streamed strippers: what cannot be followed is refused, not stored with its metadata.
        throw AppError.badRequest(`Cannot remove the metadata of this ${mime} file`);
      }
      return store(createReadStream(output));
    });
  }
}

async function probeTools(logger: Logger): Promise<Set<Tool>> {
  const found = new Set<Tool>();
  for (const [tool, version] of [['ffmpeg', '-version'], ['exiftool', '-ver']] as const) {
    try {
      await run(tool, [version]);
      found.add(tool);
    } catch {
      logger.warn({ tool }, `${tool} is not installed: uploads of the types it handles keep their metadata (see README)`);
    }
  }
  return found;
}
