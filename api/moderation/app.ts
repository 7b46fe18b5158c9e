import { rm } from 'node:fs/promises';
import path from 'node:path';
import { bodyParser } from '@koa/bodyparser';
import { Router } from '@koa/router';
import Koa from 'koa';
import type { Config } from '../../shared/config.js';
import type { Health } from '../../shared/dependency-health.js';
import { AppError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { errorHandler, notFound } from '../middleware/error.middleware.js';
import { RequestRecorder, requestContext } from '../middleware/request-context.middleware.js';
import { metricsRoutes } from '../routes/metrics.routes.js';
import type { AppState } from '../state.js';
import { WebMetrics } from '../web-metrics.js';
import { IMAGE_FORMATS, type MediaKind, VIDEO_FORMATS, detectMedia } from './media.js';
import { MODEL_NAME, type NsfwModel } from './model.js';
import type { Moderator } from './moderator.js';
import { receiveMedia } from './receive-media.js';
import { CATEGORIES, THRESHOLDS } from './verdict.js';
import type { VisionJobs } from './vision-jobs.js';

export interface VisionDeps {
  config: Config;
  logger: Logger;
  health: Health;
  model: NsfwModel;
  moderator: Moderator;
  jobs: VisionJobs;
}

export const SERVICE_NAME = 'hfs-vision';

const ENDPOINTS = {
  health: 'GET /health',
  info: 'GET /info',
  moderate_image: 'POST /moderate-image',
  moderate_gif: 'POST /moderate-gif',
  moderate_video: 'POST /moderate-video',
  moderate_media: 'POST /moderate-media',
  job_moderate_gif: 'POST /jobs/moderate-gif',
  job_moderate_video: 'POST /jobs/moderate-video',
  job_status: 'GET /jobs/{job_id}',
  job_result: 'GET /jobs/{job_id}/result',
};

/** The separate moderation service (VISION_URL): health, capabilities, sync and async moderation. */
export function createVisionApp({ config, logger, health, model, moderator, jobs }: VisionDeps) {
  const app = new Koa<AppState>();
  app.silent = true;
  const router = new Router<AppState>();
  const workDir = config.vision.workDir;
  const intake = (dir: string) => ({
    dir,
    maxBytes: config.vision.maxFileSizeMb * 1024 * 1024,
    fetchTimeoutMs: config.urlFetch.timeoutMs,
    allowedOrigins: config.urlFetch.allowedOrigins,
  });
  const capacity = { max_concurrent_jobs: config.vision.maxConcurrentJobs, queue_worker_count: jobs.workerCount };

  router.get('/health', async (ctx) => {
    ctx.body = { status: 'ok', service: SERVICE_NAME, model: MODEL_NAME, device: model.device, timestamp: new Date().toISOString(), ...capacity, queued_jobs: await jobs.queued() };
  });

  router.get('/info', (ctx) => {
    ctx.body = {
      service: SERVICE_NAME,
      model: MODEL_NAME,
      supported_formats: { images: IMAGE_FORMATS, videos: VIDEO_FORMATS },
      max_file_size_mb: config.vision.maxFileSizeMb,
      endpoints: ENDPOINTS,
      categories: CATEGORIES,
      thresholds: { allow: `< ${THRESHOLDS.allow}`, soft_flag: `${THRESHOLDS.allow}-${THRESHOLDS.hardBlock}`, hard_block: `> ${THRESHOLDS.hardBlock}` },
      ...capacity,
    };
  });

  const moderate = (expected: MediaKind | 'any') => async (ctx: Koa.ParameterizedContext<AppState>) => {
    const file = await receiveMedia(ctx, intake(path.join(workDir, 'tmp')));
    try {
      ctx.body = await moderator.moderate(file, expected);
    } finally {
      await rm(file, { force: true });
    }
  };
  router.post('/moderate-image', moderate('image'));
  router.post('/moderate-gif', moderate('gif'));
  router.post('/moderate-video', moderate('video'));
  router.post('/moderate-media', moderate('any'));

  const enqueue = (kind: MediaKind) => async (ctx: Koa.ParameterizedContext<AppState>) => {
    const file = await receiveMedia(ctx, intake(path.join(workDir, 'jobs')));
    try {
      const actual = (await detectMedia(file)).kind;
      if (actual !== kind) {
        const route = actual === 'image' ? '/moderate-image' : `/jobs/moderate-${actual}`;
        throw AppError.badRequest(`This is not a ${kind}: use ${route} or /moderate-media`);
      }
      ctx.status = 202;
      ctx.body = { job_id: await jobs.add({ file, kind }), status: 'queued' };
    } catch (err) {
      await rm(file, { force: true });
      throw err;
    }
  };
  router.post('/jobs/moderate-gif', enqueue('gif'));
  router.post('/jobs/moderate-video', enqueue('video'));

  router.get('/jobs/:id', async (ctx) => {
    const { job, status } = await jobs.status(ctx.params.id!);
    ctx.body = { job_id: job.id, status, progress: status === 'completed' ? 100 : Number(job.progress) || 0 };
  });

  router.get('/jobs/:id/result', async (ctx) => {
    const { job, status } = await jobs.status(ctx.params.id!);
    if (status === 'completed') {
      ctx.body = job.returnvalue;
    } else if (status === 'failed') {
      ctx.status = 422;
      ctx.body = { success: false, error: job.failedReason, job_id: job.id, status };
    } else {
      ctx.status = 409;
      ctx.body = { success: false, error: 'The job is not done yet', job_id: job.id, status };
    }
  });

  const metrics = new WebMetrics();
  app.use(requestContext(new RequestRecorder(logger, metrics)));
  app.use(errorHandler(logger, health));
  app.use(metricsRoutes(metrics, config.metricsToken).routes());
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: '64kb', onError: () => { throw AppError.badRequest('Malformed JSON body'); } }));
  app.use(router.routes());
  app.use(notFound);
  return app;
}
