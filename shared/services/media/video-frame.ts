import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

export interface FrameOptions {
  signal?: AbortSignal | undefined;
  /** frames larger than this are not decoded at all (ffmpeg's `max_pixels`) */
  maxPixels?: number;
}

/**
 * The first frame of a video (or anything else ffmpeg decodes) in `input`, as a PNG stream handed to
 * `use`; fails when ffmpeg decodes no frame.
 */
export async function firstVideoFrame<T>(input: string, { signal, maxPixels }: FrameOptions, use: (png: Readable) => Promise<T>): Promise<T> {
  const limit = maxPixels === undefined ? [] : ['-max_pixels', String(maxPixels)];
  const ffmpeg = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', ...limit, '-i', input, '-frames:v', '1', '-f', 'image2pipe', '-vcodec', 'png', 'pipe:1'], {
    stdio: ['ignore', 'pipe', 'ignore'],
    ...(signal ? { signal } : {}),
  });
  // Fails as soon as ffmpeg does, whether or not `use` has noticed the short stream yet.
  const succeeded = new Promise<void>((resolve, reject) => {
    ffmpeg.once('error', reject);
    ffmpeg.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited with ${code}`))));
  });
  try {
    const [result] = await Promise.all([use(ffmpeg.stdout), succeeded]);
    return result;
  } finally {
    // `use` gave up early: ffmpeg would otherwise wait forever on a full pipe.
    if (ffmpeg.exitCode === null) ffmpeg.kill();
  }
}
