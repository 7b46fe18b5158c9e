import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import * as nsfwjs from 'nsfwjs';
import sharp from 'sharp';
import { imageFrames } from '../../api/moderation/media.js';
import { INPUT_SIZE, NsfwModel } from '../../api/moderation/model.js';
import { startVisionServer, type VisionServer } from '../../api/moderation/server.js';
import { type Categories, toCategories, topCategory, verdictOf, scoreOf } from '../../api/moderation/verdict.js';
import { parseConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { testRedisUrl } from '../helpers/engines.js';
import { makeTestMedia, type TestMedia } from '../helpers/test-media.js';

// Far below any difference between two of the test images, far above float rounding.
const TOLERANCE = 1e-4;

/** The same bytes every run (a linear congruential generator), so the images stay the same too. */
function noise(length: number, seed: number): Buffer {
  let state = seed;
  return Buffer.from(Array.from({ length }, () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 24));
}

/** Pictures that the model tells apart: plain colours, noise, a gradient and ffmpeg's test card. */
async function makeImages(dir: string, media: TestMedia): Promise<string[]> {
  const files = [media.file('still.jpg')];
  const colours = [[200, 30, 30], [30, 160, 60], [40, 60, 200], [224, 172, 105], [20, 20, 20], [240, 240, 230]] as const;
  for (const [i, [r, g, b]] of colours.entries()) {
    const file = path.join(dir, `colour-${i}.png`);
    await sharp({ create: { width: 320, height: 240, channels: 3, background: { r, g, b } } }).png().toFile(file);
    files.push(file);
  }
  for (let i = 0; i < 4; i++) {
    const file = path.join(dir, `noise-${i}.jpg`);
    await sharp(noise(400 * 300 * 3, i + 1), { raw: { width: 400, height: 300, channels: 3 } }).blur(1 + i * 3).jpeg().toFile(file);
    files.push(file);
  }
  const gradient = Buffer.alloc(256 * 256 * 3);
  for (let i = 0; i < gradient.length; i += 3) gradient.set([(i / 3) % 256, Math.floor(i / 3 / 256), 128], i);
  const file = path.join(dir, 'gradient.png');
  await sharp(gradient, { raw: { width: 256, height: 256, channels: 3 } }).png().toFile(file);
  return [...files, file];
}

/** The reference: nsfwjs's own classify, one image per call, as the service ran it before batching. */
async function nsfwjsOneByOne(frames: Uint8Array[]): Promise<Categories[]> {
  const require = createRequire(import.meta.url);
  setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'))}/`);
  await tf.setBackend('wasm');
  const nsfw = await nsfwjs.load('MobileNetV2');
  try {
    const results: Categories[] = [];
    for (const rgb of frames) {
      const input = tf.tensor3d(rgb, [INPUT_SIZE, INPUT_SIZE, 3], 'int32');
      results.push(toCategories(await nsfw.classify(input, 5)));
      input.dispose();
    }
    return results;
  } finally {
    nsfw.dispose();
  }
}

function expectSame(actual: Categories, expected: Categories, what: string) {
  for (const key of Object.keys(expected) as (keyof Categories)[]) expect(actual[key], `${what}: ${key}`).to.be.closeTo(expected[key], TOLERANCE);
  expect(topCategory(actual), what).to.equal(topCategory(expected));
  expect(verdictOf(scoreOf(actual)), what).to.equal(verdictOf(scoreOf(expected)));
}

const difference = (a: Categories, b: Categories) => Math.max(...(Object.keys(a) as (keyof Categories)[]).map((key) => Math.abs(a[key] - b[key])));

describe('moderation model: batches of frames', function () {
  this.timeout(120_000);
  let media: TestMedia;
  let dir: string;
  let frames: Uint8Array[];
  let reference: Categories[];
  let model: NsfwModel;
  let tensorsAtRest: number;

  before(async () => {
    media = makeTestMedia();
    dir = await mkdtemp(path.join(tmpdir(), 'hfs-batches-'));
    const files = await makeImages(dir, media);
    frames = await Promise.all(files.map(async (file) => (await imageFrames(file))[0]!.rgb));
    reference = await nsfwjsOneByOne(frames);
    model = new NsfwModel({ threads: 2, batchSize: 4 });
    await model.load();
    tensorsAtRest = await model.tensorCount();
  });
  after(async () => {
    await model.close();
    await rm(dir, { recursive: true, force: true });
    rmSync(media.dir, { recursive: true, force: true });
  });

  it('has test images the model tells apart (so a mix-up would show)', () => {
    for (let i = 0; i < reference.length; i++) {
      for (let j = i + 1; j < reference.length; j++) expect(difference(reference[i]!, reference[j]!), `images ${i} and ${j}`).to.be.above(10 * TOLERANCE);
    }
  });

  it('scores frames that arrive together in batches, as nsfwjs scores them one by one', async () => {
    const before = { ...model.usage };
    const results = await Promise.all(frames.map((frame) => model.classify(frame)));
    results.forEach((result, i) => expectSame(result, reference[i]!, `image ${i}`));
    expect(model.usage.frames - before.frames).to.equal(frames.length);
    // Two threads, batches of up to 4: fewer model calls than frames.
    expect(model.usage.calls - before.calls).to.be.within(Math.ceil(frames.length / 4), frames.length - 1);
  });

  it('answers each of many frames in flight with its own result', async () => {
    // Every image three times, interleaved, all at once.
    const order = [...frames.keys(), ...[...frames.keys()].reverse(), ...frames.keys()];
    const results = await Promise.all(order.map((i) => model.classify(frames[i]!)));
    results.forEach((result, n) => expectSame(result, reference[order[n]!]!, `request ${n} (image ${order[n]})`));
  });

  it('runs a frame that finds the model idle at once, in a call of its own', async () => {
    const before = { ...model.usage };
    expectSame(await model.classify(frames[0]!), reference[0]!, 'alone');
    expect(model.usage).to.deep.equal({ calls: before.calls + 1, frames: before.frames + 1 });
  });

  it('fails only the frame that cannot be scored, not those batched with it', async () => {
    const sent = [...frames.slice(0, 3), new Uint8Array(100), ...frames.slice(3, 6)];
    const settled = await Promise.allSettled(sent.map((frame) => model.classify(frame)));
    expect(settled[3]!.status).to.equal('rejected');
    expect(((settled[3] as PromiseRejectedResult).reason as Error).message).to.match(/150528 bytes/);
    [0, 1, 2, 4, 5, 6].forEach((n) => {
      expect(settled[n]!.status, `frame ${n}`).to.equal('fulfilled');
      expectSame((settled[n] as PromiseFulfilledResult<Categories>).value, reference[n < 3 ? n : n - 1]!, `frame ${n}`);
    });
  });

  it('makes one call per frame with VISION_BATCH_SIZE=1, with the same results', async () => {
    const single = new NsfwModel({ threads: 1, batchSize: 1 });
    await single.load();
    try {
      const results = await Promise.all(frames.map((frame) => single.classify(frame)));
      results.forEach((result, i) => expectSame(result, reference[i]!, `image ${i}`));
      expect(single.usage).to.deep.equal({ calls: frames.length, frames: frames.length });
    } finally {
      await single.close();
    }
  });

  it('leaves no tensor behind', async () => {
    expect(await model.tensorCount()).to.equal(tensorsAtRest);
  });
});

describe('moderation service: requests judged in batches', function () {
  this.timeout(120_000);
  let vision: VisionServer;
  let media: TestMedia;
  let dataDir: string;
  let images: { name: string; bytes: Buffer }[];

  before(async () => {
    media = makeTestMedia();
    dataDir = await mkdtemp(path.join(tmpdir(), 'hfs-vision-batches-'));
    images = await Promise.all((await makeImages(dataDir, media)).map(async (file) => ({ name: path.basename(file), bytes: await readFile(file) })));
    const config = parseConfig({
      DATA_DIR: dataDir,
      REDIS_URL: testRedisUrl(),
      REDIS_PREFIX: `v${randomBytes(4).toString('hex')}`,
      SECRET_KEY: randomBytes(32).toString('hex'),
      VISION_THREADS: '2',
      VISION_BATCH_SIZE: '4',
    });
    vision = await startVisionServer(config, createLogger('silent'), 0, '127.0.0.1');
  });
  after(async () => {
    await vision.close();
    await rm(dataDir, { recursive: true, force: true });
    rmSync(media.dir, { recursive: true, force: true });
  });

  const post = async (bytes: Buffer, name: string) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), name);
    const res = await fetch(`${vision.url}/moderate-image`, { method: 'POST', body: form });
    return { status: res.status, body: (await res.json()) as { categories: Categories; error?: string } };
  };

  it('answers concurrent requests each with its own image\'s result, and 400 only to the broken ones', async () => {
    const alone: Categories[] = [];
    for (const image of images) alone.push((await post(image.bytes, image.name)).body.categories);
    const tensors = await vision.model.tensorCount();
    const before = { ...vision.model.usage };

    const broken = [
      { name: 'truncated.png', bytes: media.read('truncated.png') },
      { name: 'notes.txt', bytes: media.read('notes.txt') },
    ];
    const sent = [...images, broken[0]!, ...[...images].reverse(), broken[1]!];
    const answers = await Promise.all(sent.map((image) => post(image.bytes, image.name)));
    answers.forEach((answer, n) => {
      const image = sent[n]!;
      const i = images.indexOf(image);
      if (i === -1) return expect(answer.status, image.name).to.equal(400);
      expect(answer.status, image.name).to.equal(200);
      expectSame(answer.body.categories, alone[i]!, `${image.name} (request ${n})`);
    });
    const calls = vision.model.usage.calls - before.calls;
    expect(vision.model.usage.frames - before.frames).to.equal(images.length * 2);
    expect(calls, 'model calls for the concurrent requests').to.be.below(images.length * 2);
    expect(await vision.model.tensorCount()).to.equal(tensors);
  });
});
