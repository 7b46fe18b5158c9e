import { expect } from 'chai';
import { PassThrough, type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sniffBody } from '../../shared/services/media/media-sniffer.js';
import { elfBytes, pngBytes } from '../helpers/media.js';

async function drain(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await pipeline(body, new Writable({ write(chunk: Buffer, _e, done) { chunks.push(chunk); done(); } }));
  return Buffer.concat(chunks);
}

describe('sniffBody', () => {
  // The head is read and put back: every byte must come out again, in order, however the body arrives.
  const cases: [string, (s: PassThrough, bytes: Buffer) => void][] = [
    ['already ended, in one chunk', (s, b) => s.end(b)],
    ['already ended, in small chunks', (s, b) => {
      for (let i = 0; i < b.length; i += 1000) s.write(b.subarray(i, i + 1000));
      s.end();
    }],
    ['still arriving', (s, b) => {
      s.write(b.subarray(0, 5000));
      setTimeout(() => s.end(b.subarray(5000)), 20);
    }],
    ['shorter than the head', (s) => s.end(pngBytes(300, 2))],
  ];
  for (const [name, feed] of cases) {
    it(`gives back every byte of a body ${name}`, async () => {
      const bytes = name.startsWith('shorter') ? pngBytes(300, 2) : pngBytes(30_000, 1);
      const source = new PassThrough();
      feed(source, bytes);
      const { sniffed, body } = await sniffBody(source);
      expect(sniffed).to.include({ mime: 'image/png', ext: 'png', isImage: true, blocked: false });
      expect((await drain(body)).equals(bytes)).to.equal(true);
    });
  }

  it('refuses an executable and an empty body before anything is passed on', async () => {
    const exe = new PassThrough();
    exe.end(elfBytes());
    let error: unknown;
    await sniffBody(exe).catch((err: unknown) => (error = err));
    expect(error).to.include({ status: 400 });
    const empty = new PassThrough();
    empty.end();
    error = undefined;
    await sniffBody(empty).catch((err: unknown) => (error = err));
    expect(error).to.include({ status: 400 });
  });

  it('fails, rather than waits for ever, on a body destroyed before its head arrived', async () => {
    const source = new PassThrough();
    source.write(pngBytes(100, 1));
    setTimeout(() => source.destroy(), 10);
    let error: unknown;
    await sniffBody(source).catch((err: unknown) => (error = err));
    expect(error).to.be.instanceOf(Error);
  });

  it('refuses what is not an image when an image is required', async () => {
    const text = new PassThrough();
    text.end(Buffer.from('just text\n'));
    let error: unknown;
    await sniffBody(text, { requireImage: true }).catch((err: unknown) => (error = err));
    expect(error).to.include({ status: 400 });
  });
});
