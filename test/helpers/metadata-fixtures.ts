import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp, { type Sharp } from 'sharp';

// exiftool (Debian libimage-exiftool-perl) writes the metadata into the fixtures and reads the results back.
const run = promisify(execFile);
export type Tags = Record<string, unknown>;

/** Where fixtures and the files exiftool reads are written (one per test process). */
export const fixtureDir = mkdtempSync(join(tmpdir(), 'hfs-metadata-'));
let serial = 0;

export const GPS = ['-GPSLatitude=48.8582', '-GPSLatitudeRef=N', '-GPSLongitude=2.2945', '-GPSLongitudeRef=E'];
export const CAMERA = ['-Make=Canon', '-Model=EOS 5D', '-SerialNumber=SN123456'];
export const XMP = ['-XMP-dc:Title=Secret title', '-XMP-dc:Creator=Alice Example'];

export async function exiftool(file: string, ...args: string[]) {
  await run('exiftool', ['-q', '-q', '-overwrite_original', ...args, file]);
}

/** Every tag exiftool finds, as `Group:Name` (-G1), duplicates too (-a), numeric values (-n). */
export async function tagsOf(bytes: Buffer): Promise<Tags> {
  const file = join(fixtureDir, `read-${serial++}`);
  await writeFile(file, bytes);
  const { stdout } = await run('exiftool', ['-j', '-a', '-G1', '-n', file]);
  return (JSON.parse(stdout) as Tags[])[0]!;
}

/** Tags that are neither exiftool's own nor the file's description (name, size, dates of the temporary file). */
export function metadataTags(tags: Tags): string[] {
  return Object.keys(tags).filter((key) => !/^(SourceFile|ExifTool:ExifToolVersion|System:|File:(?!Comment)|ICC)/.test(key));
}

/** Tags that place the file or name its camera. */
export function locationTags(tags: Tags): string[] {
  return Object.keys(tags).filter((key) => /GPS|Location|Make|Model|Serial/i.test(key));
}

/** A fixture: sharp encodes it, exiftool then writes `tags` into it. */
export async function fixture(name: string, image: Sharp, ...tags: string[]): Promise<Buffer> {
  const file = join(fixtureDir, name);
  await image.toFile(file);
  if (tags.length > 0) await exiftool(file, ...tags);
  return readFile(file);
}

/** A deterministic pattern of pixels, so decoded images can be compared. */
export function picture(width = 64, height = 48, channels: 3 | 4 = 3) {
  const raw = Buffer.alloc(width * height * channels);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 37 + (i >> 6) * 11) & 0xff;
  return sharp(raw, { raw: { width, height, channels } });
}

/** A phone's portrait photo: a JPEG with a GPS position, a camera and Orientation 6. */
export function phoneJpeg(name = 'phone.jpg'): Promise<Buffer> {
  return fixture(name, picture().jpeg({ quality: 90 }), ...GPS, ...CAMERA, '-Orientation#=6');
}
