import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startVisionServer, type VisionServer } from '../../api/moderation/server.js';
import { parseConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { testRedisUrl } from '../helpers/engines.js';
import { eventually } from '../helpers/eventually.js';
import { makeTestMedia, type TestMedia } from '../helpers/test-media.js';

describe('moderation service', function () {
  this.timeout(120_000);
  let vision: VisionServer;
  let media: TestMedia;
  let dataDir: string;

  before(async () => {
    media = makeTestMedia();
    dataDir = await mkdtemp(path.join(tmpdir(), 'hfs-vision-'));
    const config = parseConfig({
      DATA_DIR: dataDir,
      REDIS_URL: testRedisUrl(),
      REDIS_PREFIX: `v${randomBytes(4).toString('hex')}`,
      SECRET_KEY: randomBytes(32).toString('hex'),
      VISION_MAX_FILE_SIZE_MB: '2',
      VISION_MAX_CONCURRENT_JOBS: '1',
    });
    vision = await startVisionServer(config, createLogger('silent'), 0, '127.0.0.1');
  });
  after(async () => {
    await vision.close();
    await rm(dataDir, { recursive: true, force: true });
    rmSync(media.dir, { recursive: true, force: true });
  });

  const post = async (route: string, bytes: Buffer, name = 'upload.bin') => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), name);
    const res = await fetch(`${vision.url}${route}`, { method: 'POST', body: form });
    return { status: res.status, body: (await res.json()) as any };
  };

  describe('GET /health and /info', () => {
    it('reports health with every field of the spec', async () => {
      const res = await fetch(`${vision.url}/health`);
      const body = (await res.json()) as Record<string, unknown>;
      expect(res.status).to.equal(200);
      expect(body).to.have.all.keys('status', 'service', 'model', 'device', 'timestamp', 'max_concurrent_jobs', 'queue_worker_count', 'queued_jobs');
      expect(body).to.include({ status: 'ok', max_concurrent_jobs: 1, queue_worker_count: 1, queued_jobs: 0 });
      expect(body.device).to.match(/wasm/);
      expect(new Date(body.timestamp as string).toISOString()).to.equal(body.timestamp);
    });

    it('describes formats, limits, endpoints, categories and thresholds', async () => {
      const body = (await (await fetch(`${vision.url}/info`)).json()) as Record<string, any>;
      expect(body).to.have.all.keys('service', 'model', 'supported_formats', 'max_file_size_mb', 'endpoints', 'categories', 'thresholds', 'max_concurrent_jobs', 'queue_worker_count');
      expect(body.supported_formats).to.deep.equal({ images: ['jpg', 'jpeg', 'png', 'webp', 'bmp'], videos: ['mp4', 'avi', 'mov', 'mkv', 'webm', 'flv', 'wmv', 'm4v'] });
      expect(body.categories).to.deep.equal({ '0': 'hentai', '1': 'nsfw_real', '2': 'sfw_anime', '3': 'sfw_real' });
      expect(body.max_file_size_mb).to.equal(2);
      for (const value of Object.values(body.thresholds)) expect(value).to.be.a('string');
      expect(body.thresholds.allow).to.include('40');
      expect(body.thresholds.hard_block).to.include('80');
      expect(Object.values(body.endpoints)).to.include.members([
        'POST /moderate-image', 'POST /moderate-gif', 'POST /moderate-video', 'POST /moderate-media',
        'POST /jobs/moderate-gif', 'POST /jobs/moderate-video', 'GET /jobs/{job_id}', 'GET /jobs/{job_id}/result',
      ]);
    });
  });

  it('serves its own metrics at /metrics, counting its requests by route', async () => {
    await fetch(`${vision.url}/health`);
    const res = await fetch(`${vision.url}/metrics`);
    const text = await res.text();
    expect(res.status).to.equal(200);
    expect(text).to.match(/^process_resident_memory_bytes \d+/m);
    expect(text).to.match(/^hfs_http_request_duration_seconds_count\{method="GET",route="\/health",status="200"\} [1-9]/m);
  });

  describe('POST /moderate-image', () => {
    for (const ext of ['jpg', 'png', 'webp', 'bmp']) {
      it(`scores a ${ext} with the real model: four probabilities summing to 1 and the verdict of the score`, async () => {
        const res = await post('/moderate-image', media.read(`still.${ext}`), `still.${ext}`);
        expect(res.status).to.equal(200);
        const { categories, score, verdict, category } = res.body;
        expect(res.body).to.include({ success: true, mediaType: 'image', model: 'nsfwjs MobileNetV2' });
        expect(categories).to.have.all.keys('hentai', 'nsfw_real', 'sfw_anime', 'sfw_real');
        const sum = Object.values(categories as Record<string, number>).reduce((a, b) => a + b, 0);
        expect(sum).to.be.closeTo(1, 0.001);
        expect(score).to.be.closeTo((categories.hentai + categories.nsfw_real) * 100, 0.01);
        expect(verdict).to.equal(score < 40 ? 'allow' : score > 80 ? 'hard_block' : 'soft_flag');
        expect(category).to.equal(Object.entries(categories as Record<string, number>).sort((a, b) => b[1] - a[1])[0]![0]);
        expect(res.body.elapsedMs).to.be.a('number');
      });
    }

    it('refuses a GIF or a video on the image route (400), pointing at the right one', async () => {
      const res = await post('/moderate-image', media.read('anim.gif'));
      expect(res.status).to.equal(400);
      expect(res.body.error).to.match(/moderate-gif/);
    });
  });

  describe('multi-frame media', () => {
    it('moderates a GIF frame by frame; the verdict is its worst frame', async () => {
      const res = await post('/moderate-gif', media.read('anim.gif'));
      expect(res.status).to.equal(200);
      expect(res.body.mediaType).to.equal('gif');
      expect(res.body.frames.length).to.be.within(2, 8);
      const worst = res.body.frames.reduce((a: any, b: any) => (b.score > a.score ? b : a));
      expect(res.body.worstFrame).to.equal(worst.index);
      expect(res.body.score).to.equal(worst.score);
      expect(res.body.verdict).to.equal(worst.verdict);
    });

    it('moderates a video made with ffmpeg frame by frame, with timestamps', async () => {
      const res = await post('/moderate-video', media.read('clip.mp4'));
      expect(res.status).to.equal(200);
      expect(res.body.mediaType).to.equal('video');
      expect(res.body.frames).to.have.length(3);
      expect(res.body.frames.map((f: any) => f.timestamp)).to.deep.equal([0, 1, 2]);
      expect(res.body.frames.some((f: any) => f.index === res.body.worstFrame)).to.equal(true);
    });

    it('moderates every frame of an APNG and an animated WebP, not just the first', async () => {
      for (const name of ['anim.apng', 'anim.webp']) {
        const res = await post('/moderate-gif', media.read(name));
        expect(res.status, name).to.equal(200);
        expect(res.body.mediaType, name).to.equal('gif');
        expect(res.body.frames.length, name).to.equal(8);
        // Frames spread over all 15 of the animation, not the first 8.
        expect(res.body.frames.at(-1).index, name).to.be.at.least(12);
      }
      const still = await post('/moderate-image', media.read('still.webp'));
      expect(still.body.mediaType).to.equal('image');
    });

    it('picks by content on /moderate-media', async () => {
      expect((await post('/moderate-media', media.read('clip.mkv'))).body.mediaType).to.equal('video');
      expect((await post('/moderate-media', media.read('clip.webm'))).body.mediaType).to.equal('video');
      expect((await post('/moderate-media', media.read('anim.gif'))).body.mediaType).to.equal('gif');
      expect((await post('/moderate-media', media.read('still.jpg'))).body.mediaType).to.equal('image');
    });
  });

  describe('bad input', () => {
    it('answers 413 past max_file_size_mb, while streaming', async () => {
      const res = await post('/moderate-media', Buffer.concat([media.read('still.png'), randomBytes(3 * 1024 * 1024)]));
      expect(res.status).to.equal(413);
      expect(res.body.success).to.equal(false);
    });

    it('answers 400 for unsupported media', async () => {
      const res = await post('/moderate-media', media.read('notes.txt'));
      expect(res.status).to.equal(400);
      expect(res.body.error).to.match(/Unsupported/);
    });

    it('answers 400 for corrupt media', async () => {
      expect((await post('/moderate-image', media.read('truncated.png'))).status).to.equal(400);
      const video = await post('/moderate-video', media.read('truncated.mp4'));
      expect(video.status).to.equal(400);
      expect(video.body.error).to.match(/decoded/);
    });

    it('answers 400 to a multipart body without a boundary, or cut short', async () => {
      const head = '--b0undary\r\nContent-Disposition: form-data; name="file"; filename="x.png"\r\n\r\n';
      for (const [contentType, body] of [
        ['multipart/form-data', Buffer.from('no boundary')],
        ['multipart/form-data; boundary=b0undary', Buffer.concat([Buffer.from(head), media.read('still.png')])],
      ] as const) {
        const res = await fetch(`${vision.url}/moderate-media`, { method: 'POST', headers: { 'content-type': contentType }, body });
        expect(res.status, contentType).to.equal(400);
        expect(((await res.json()) as { success: boolean }).success).to.equal(false);
      }
    });

    it('answers 400 without a file, and for a private URL', async () => {
      const form = new FormData();
      form.append('other', 'x');
      expect((await fetch(`${vision.url}/moderate-media`, { method: 'POST', body: form })).status).to.equal(400);
      const res = await fetch(`${vision.url}/moderate-media`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: 'http://127.0.0.1:1/x.png' }) });
      expect(res.status).to.equal(400);
    });
  });

  describe('async jobs', () => {
    it('queues, reports status and progress, answers 409 until done, then the result', async () => {
      await vision.jobs.queue.pause();
      const created = await post('/jobs/moderate-video', media.read('clip.mp4'));
      expect(created.status).to.equal(202);
      expect(created.body).to.have.all.keys('job_id', 'status');
      expect(created.body.status).to.equal('queued');
      const id = created.body.job_id;

      const waiting = await fetch(`${vision.url}/jobs/${id}/result`);
      expect(waiting.status).to.equal(409);
      const status = (await (await fetch(`${vision.url}/jobs/${id}`)).json()) as any;
      expect(status).to.deep.equal({ job_id: id, status: 'queued', progress: 0 });
      const health = (await (await fetch(`${vision.url}/health`)).json()) as any;
      expect(health.queued_jobs).to.equal(1);

      await vision.jobs.queue.resume();
      await eventually(async () => ((await (await fetch(`${vision.url}/jobs/${id}`)).json()) as any).status === 'completed', 30_000);
      const done = (await (await fetch(`${vision.url}/jobs/${id}`)).json()) as any;
      expect(done.progress).to.equal(100);
      const result = await fetch(`${vision.url}/jobs/${id}/result`);
      expect(result.status).to.equal(200);
      const body = (await result.json()) as any;
      expect(body).to.include({ success: true, mediaType: 'video' });
      expect(body.frames).to.have.length(3);
    });

    it('moderates GIFs as jobs, refuses the wrong kind, and 404s unknown jobs', async () => {
      const created = await post('/jobs/moderate-gif', media.read('anim.gif'));
      expect(created.status).to.equal(202);
      await eventually(async () => (await fetch(`${vision.url}/jobs/${created.body.job_id}/result`)).status === 200, 30_000);
      expect((await post('/jobs/moderate-gif', media.read('clip.mp4'))).status).to.equal(400);
      expect((await fetch(`${vision.url}/jobs/999999`)).status).to.equal(404);
      expect((await fetch(`${vision.url}/jobs/999999/result`)).status).to.equal(404);
    });

    it('reports a job whose media turns out corrupt as failed (422)', async () => {
      const created = await post('/jobs/moderate-video', media.read('truncated.mp4'));
      expect(created.status).to.equal(202);
      await eventually(async () => ((await (await fetch(`${vision.url}/jobs/${created.body.job_id}`)).json()) as any).status === 'failed', 30_000);
      const result = await fetch(`${vision.url}/jobs/${created.body.job_id}/result`);
      expect(result.status).to.equal(422);
    });
  });

  it('disposes every tensor it makes', async () => {
    const before = await vision.model.tensorCount();
    for (let i = 0; i < 5; i++) await post('/moderate-media', media.read('anim.gif'));
    expect(await vision.model.tensorCount()).to.equal(before);
  });
});
