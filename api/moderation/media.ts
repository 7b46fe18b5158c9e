import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileTypeFromBuffer } from 'file-type';
import sharp, { type Sharp } from 'sharp';
import { AppError } from '../../shared/errors.js';
import { ByteLimit } from '../../shared/storage/byte-limit.js';
import { FRAME_BYTES, INPUT_SIZE } from './model.js';

export const IMAGE_FORMATS = ['jpg', 'jpeg', 'png', 'webp', 'bmp'];
export const VIDEO_FORMATS = ['mp4', 'avi', 'mov', 'mkv', 'webm', 'flv', 'wmv', 'm4v'];
export type MediaKind = 'image' | 'gif' | 'video';
/** How frames come out of a file: one still, the pages of an animation (sharp), or ffmpeg. */
export type Decoder = 'still' | 'pages' | 'ffmpeg';
export interface Media {
  /** 'gif' stands for every animated image: GIF, animated WebP, APNG */
  kind: MediaKind;
  decoder: Decoder;
}

// What file-type calls each supported container. An animation is judged on all its frames: a
// harmless first frame must not hide the rest (APNG through ffmpeg: libvips reads its first frame only).
const MEDIA_OF_EXT: Record<string, Media> = {
  jpg: { kind: 'image', decoder: 'still' },
  png: { kind: 'image', decoder: 'still' },
  bmp: { kind: 'image', decoder: 'still' },
  webp: { kind: 'image', decoder: 'still' },
  gif: { kind: 'gif', decoder: 'pages' },
  apng: { kind: 'gif', decoder: 'ffmpeg' },
  ...Object.fromEntries(['mp4', 'm4v', 'mov', 'avi', 'mkv', 'webm', 'flv', 'wmv', 'asf'].map((ext) => [ext, { kind: 'video', decoder: 'ffmpeg' }])),
};
const ANIMATED_WEBP: Media = { kind: 'gif', decoder: 'pages' };

export interface Frame {
  index: number;
  /** seconds into a video */
  timestamp?: number;
  rgb: Uint8Array;
}

/** Streams a body to a temp file under `dir`, failing with 413 past `maxBytes`; nothing stays on failure. */
export async function receiveToFile(body: Readable, dir: string, maxBytes: number): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, randomUUID());
  const out = createWriteStream(file, { flags: 'wx' });
  try {
    await pipeline(body, new ByteLimit(maxBytes), out);
    return file;
  } catch (err) {
    if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
    await rm(file, { force: true });
    throw err;
  }
}

/** What a stored file is, from its first bytes; unsupported formats are a 400. */
export async function detectMedia(file: string): Promise<Media> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(4100);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    if (bytesRead === 0) throw AppError.badRequest('The file is empty');
    const type = await fileTypeFromBuffer(head.subarray(0, bytesRead));
    const media = type && MEDIA_OF_EXT[type.ext];
    if (!media) throw AppError.badRequest(`Unsupported media${type ? ` (${type.mime})` : ''}: send ${[...IMAGE_FORMATS, 'gif', ...VIDEO_FORMATS].join(', ')}`);
    if (type.ext === 'webp' && (await pagesOf(file)) > 1) return ANIMATED_WEBP;
    return media;
  } finally {
    await handle.close();
  }
}

async function frameOf(input: Sharp): Promise<Uint8Array> {
  // EXIF orientation honoured; every input becomes 224×224 sRGB without alpha.
  const data = await input.rotate().resize(INPUT_SIZE, INPUT_SIZE, { fit: 'fill' }).removeAlpha().toColourspace('srgb').raw().toBuffer();
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function corrupt(err: unknown): AppError {
  return AppError.badRequest(`The media could not be decoded (corrupt or truncated): ${(err as Error).message.split('\n')[0]}`);
}

export async function imageFrames(file: string): Promise<Frame[]> {
  try {
    return [{ index: 0, rgb: await frameOf(sharp(file, { failOn: 'error' })) }];
  } catch (err) {
    // sharp's bundled libvips reads no BMP; ffmpeg does.
    if (!/unsupported image format/i.test((err as Error).message)) throw corrupt(err);
  }
  const still = await run('ffmpeg', ['-v', 'error', '-i', file, '-frames:v', '1', '-vf', `scale=${INPUT_SIZE}:${INPUT_SIZE}`, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], 'buffer');
  if (still.code !== 0 || still.stdout.length !== FRAME_BYTES) throw corrupt(new Error(ffmpegError(still.stderr, file) || 'no frame decoded'));
  return [{ index: 0, rgb: new Uint8Array(still.stdout) }];
}

async function pagesOf(file: string): Promise<number> {
  try {
    return (await sharp(file, { animated: true }).metadata()).pages ?? 1;
  } catch (err) {
    throw corrupt(err);
  }
}

/** Up to `max` frames of an animation that sharp reads (GIF, WebP), evenly spread over its length. */
export async function pageFrames(file: string, max: number): Promise<Frame[]> {
  try {
    const { pages = 1 } = await sharp(file, { animated: true, failOn: 'error' }).metadata();
    const count = Math.min(max, pages);
    const indices = [...new Set(Array.from({ length: count }, (_, i) => Math.floor((i * pages) / count)))];
    return Promise.all(indices.map(async (index) => ({ index, rgb: await frameOf(sharp(file, { page: index, failOn: 'error' })) })));
  } catch (err) {
    throw corrupt(err);
  }
}

function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
function run(command: string, args: string[], output: 'buffer'): Promise<{ code: number | null; stdout: Buffer; stderr: string }>;
function run(command: string, args: string[], output?: 'buffer') {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const stdout = Buffer.concat(chunks);
      resolve({ code, stdout: output === 'buffer' ? stdout : stdout.toString(), stderr });
    });
  });
}

async function durationOf(file: string): Promise<number | undefined> {
  const probe = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]);
  const seconds = Number.parseFloat(probe.stdout);
  return probe.code === 0 && Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

async function frameCountOf(file: string): Promise<number | undefined> {
  const probe = await run('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-count_packets', '-show_entries', 'stream=nb_read_packets', '-of', 'csv=p=0', file]);
  const frames = Number.parseInt(probe.stdout, 10);
  return probe.code === 0 && frames > 0 ? frames : undefined;
}

interface Sampling {
  /** ffmpeg video filter that keeps the sampled frames */
  filter: string;
  count: number;
  /** the position of the i-th sampled frame: seconds into a video, or the frame number of an animation */
  positionOf(i: number): Pick<Frame, 'index' | 'timestamp'>;
}

/**
 * A video gives at most one frame a second, spread by time; an animation (APNG: no duration is
 * known) gives `max` frames spread by frame number, since its frames change faster.
 */
async function samplingOf(file: string, kind: MediaKind, max: number): Promise<Sampling | undefined> {
  if (kind === 'video') {
    const duration = await durationOf(file);
    if (duration === undefined) return undefined;
    const count = Math.max(1, Math.min(max, Math.ceil(duration)));
    const fps = count / duration;
    return { filter: `fps=${fps}`, count, positionOf: (i) => ({ index: i, timestamp: Math.round((i / fps) * 100) / 100 }) };
  }
  const frames = await frameCountOf(file);
  if (frames === undefined) return undefined;
  const step = Math.ceil(frames / max);
  return { filter: `select=not(mod(n\\,${step}))`, count: Math.ceil(frames / step), positionOf: (i) => ({ index: i * step }) };
}

/** ffmpeg's first error line, without the decoder's memory addresses or our temp file's path. */
function ffmpegError(stderr: string, file: string): string {
  return (stderr.split('\n')[0] ?? '').replaceAll(file, 'input').replace(/\s*@ 0x[0-9a-f]+/g, '');
}

/**
 * Up to `max` frames evenly spread over a video or an animation, decoded by ffmpeg and piped out as
 * raw RGB (never written to disk); each frame is handed to `onFrame` as it arrives.
 */
export async function ffmpegFrames(
  file: string,
  kind: MediaKind,
  max: number,
  onFrame: (frame: Frame) => Promise<void>,
  signal?: AbortSignal,
): Promise<number> {
  const what = kind === 'video' ? 'video' : 'animation';
  const sampling = await samplingOf(file, kind, max);
  if (!sampling) throw AppError.badRequest(`The ${what} could not be decoded (corrupt, truncated or not a ${what})`);
  const ffmpeg = spawn(
    'ffmpeg',
    [
      '-v', 'error', '-i', file,
      '-vf', `${sampling.filter},scale=${INPUT_SIZE}:${INPUT_SIZE}`, '-fps_mode', 'vfr', '-frames:v', String(sampling.count),
      '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], ...(signal ? { signal } : {}) },
  );
  let stderr = '';
  ffmpeg.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => ffmpeg.on('close', resolve));
  ffmpeg.on('error', () => undefined);
  let pending: Buffer = Buffer.alloc(0);
  let index = 0;
  for await (const chunk of ffmpeg.stdout as AsyncIterable<Buffer>) {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= FRAME_BYTES) {
      const rgb = new Uint8Array(pending.subarray(0, FRAME_BYTES));
      pending = pending.subarray(FRAME_BYTES);
      await onFrame({ ...sampling.positionOf(index), rgb });
      index += 1;
    }
  }
  const code = await exited;
  if (index === 0) throw AppError.badRequest(`The ${what} could not be decoded: ${ffmpegError(stderr, file) || `ffmpeg exited with ${code}`}`);
  return index;
}
