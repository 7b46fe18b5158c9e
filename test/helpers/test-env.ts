import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startWebServer, type WebServer } from '../../api/server.js';
import { parseConfig, type Env } from '../../shared/config.js';
import { createContainer, type Container } from '../../shared/container.js';
import { QUEUE_NAMES } from '../../shared/jobs.js';
import { createLogger, type Logger } from '../../shared/logger.js';
import type { PlanName } from '../../shared/plans.js';
import { handlers } from '../../workers/handlers/index.js';
import { startWorkers, type WorkerPool } from '../../workers/worker-pool.js';
import { ApiClient } from './api-client.js';
import { cloneDatabase, testRedisUrl } from './engines.js';
import { freePort } from './ports.js';

export interface TestEnvOptions {
  /** Extra environment for parseConfig (limits, storage driver, ...). */
  env?: Env;
  /** Start the BullMQ workers of every queue in this process too. */
  workers?: boolean;
  /** Where the service logs (silent unless TEST_LOG_LEVEL says otherwise). */
  logger?: Logger;
  /** The HTTP port (a free one by default), for peers that must know it first (an ACME CA). */
  port?: number;
}

export interface TestEnv {
  container: Container;
  web: WebServer;
  api: ApiClient;
  workers?: WorkerPool;
  /** The per-file database URL on PostgreSQL (undefined on PGlite). */
  databaseUrl?: string;
  dataDir: string;
  createAccount(options?: { plan?: PlanName; username?: string; password?: string }): Promise<{ id: string; username: string; apiKey: string }>;
  close(): Promise<void>;
}

let accountCounter = 0;

/**
 * One isolated service for a test file: its own database clone, Redis key prefix and data dir, the
 * real web app on a loopback port, and (optionally) the real workers.
 */
export async function createTestEnv(options: TestEnvOptions = {}): Promise<TestEnv> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'hfs-test-'));
  const prefix = `t${randomBytes(5).toString('hex')}`;
  const port = options.port ?? (await freePort());
  const config = parseConfig({
    BASE_URL: `http://localhost:${port}`,
    DATA_DIR: dataDir,
    REDIS_URL: testRedisUrl(),
    REDIS_PREFIX: prefix,
    SECRET_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
    NODE_ENV: 'test',
    // Moderation has its own tests; elsewhere no moderation service listens.
    MODERATION_ENABLED: 'false',
    ...options.env,
  });
  const { handle, url: databaseUrl } = await cloneDatabase(config.statementTimeoutMs);
  const container = await createContainer(config, { database: handle, logger: options.logger ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent') });
  const web = await startWebServer(container, port, '127.0.0.1');
  const workers = options.workers ? await startWorkers(container, QUEUE_NAMES, handlers) : undefined;

  return {
    container,
    web,
    api: new ApiClient(web.url),
    ...(workers ? { workers } : {}),
    ...(databaseUrl ? { databaseUrl } : {}),
    dataDir,
    async createAccount(opts = {}) {
      accountCounter += 1;
      const username = opts.username ?? `user${accountCounter}${randomBytes(2).toString('hex')}`;
      const { account, apiKey } = await container.services.accounts.create({
        username,
        password: opts.password ?? 'correct-horse-battery',
        plan: opts.plan ?? 'free',
      });
      return { id: account.id, username: account.username, apiKey };
    },
    async close() {
      await web.close();
      await workers?.close();
      const keys = await container.redis.keys(`${prefix}:*`);
      if (keys.length > 0) await container.redis.del(...keys);
      await container.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A second web process of the same service: same database, Redis and config, but its own caches and
 * subscriptions — for tests of what must cross processes.
 */
export async function startSecondWebProcess(env: TestEnv) {
  const sharedDatabase = { ...env.container.database, close: async () => undefined };
  const container = await createContainer(env.container.config, { database: sharedDatabase, logger: createLogger('silent') });
  const web = await startWebServer(container, await freePort(), '127.0.0.1');
  return {
    container,
    web,
    async close() {
      await web.close();
      await container.close();
    },
  };
}
