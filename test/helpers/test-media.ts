import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Media made by the test itself with ffmpeg's test sources (no explicit content in the repo):
 * stills in every supported image format, animations (GIF, APNG, WebP) and short videos.
 */
export function makeTestMedia() {
  const dir = mkdtempSync(path.join(tmpdir(), 'hfs-media-'));
  const ffmpeg = (args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args], { stdio: 'pipe' });
  const file = (name: string) => path.join(dir, name);
  for (const ext of ['jpg', 'png', 'webp', 'bmp']) ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=640x480', '-frames:v', '1', file(`still.${ext}`)]);
  ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=5', '-t', '3', file('anim.gif')]);
  ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=5', '-t', '3', '-plays', '0', '-f', 'apng', file('anim.apng')]);
  ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=5', '-t', '3', '-c:v', 'libwebp_anim', '-loop', '0', file('anim.webp')]);
  ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10', '-t', '2', file('clip.mkv')]);
  ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10', '-f', 'lavfi', '-i', 'sine=frequency=440', '-t', '3', '-pix_fmt', 'yuv420p', '-shortest', file('clip.mp4')]);
  ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10', '-t', '2', file('clip.webm')]);
  const png = readFileSync(file('still.png'));
  writeFileSync(file('truncated.png'), png.subarray(0, 200));
  writeFileSync(file('truncated.mp4'), readFileSync(file('clip.mp4')).subarray(0, 2000));
  writeFileSync(file('notes.txt'), 'just some text\n');
  return { dir, file, read: (name: string) => readFileSync(file(name)) };
}

export type TestMedia = ReturnType<typeof makeTestMedia>;
