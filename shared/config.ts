import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { z } from 'zod';

// The only place that reads process.env: every variable is validated here once, at boot.

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const bool = z.stringbool();

const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    BASE_URL: z.url({ protocol: /^https?$/ }).default('http://localhost:3000'),
    SITE_URL: z.url({ protocol: /^https?$/ }).optional(),
    // Unset: the service that VISION_PORT puts on this machine, so a second instance uses its own.
    VISION_URL: z.url({ protocol: /^https?$/ }).optional(),
    PORT: port.default(3000),
    // Web processes sharing PORT (the Heroku convention); more than the CPUs only adds memory.
    WEB_CONCURRENCY: positiveInt.default(1),
    VISION_PORT: port.default(3001),
    // Where the web process also listens with TLS for custom domains (certificates picked by SNI).
    HTTPS_PORT: port.optional(),
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
    // The web process's SQL statements (a lock wait included) are cancelled past this and answered 503; 0 = no bound.
    DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(5000),
    REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
    REDIS_PREFIX: z.string().regex(/^[a-z0-9:_-]+$/i).default('hfs'),
    STORAGE_DRIVER: z.enum(['local', 's3']).default('local'),
    S3_BUCKET: z.string().optional(),
    S3_ENDPOINT: z.url().optional(),
    S3_REGION: z.string().default('us-east-1'),
    S3_FORCE_PATH_STYLE: bool.default(false),
    S3_ACCESS_KEY_ID: z.string().optional(),
    S3_SECRET_ACCESS_KEY: z.string().optional(),
    DATA_DIR: z.string().default('./data'),
    SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    TRUST_PROXY: bool.default(false),
    RATE_LIMIT_UPLOADS_PER_MINUTE: z.coerce.number().int().positive().default(120),
    RATE_LIMIT_ANONYMOUS_UPLOADS_PER_MINUTE: z.coerce.number().int().positive().default(20),
    PRIVATE_LINK_TTL_SECONDS: z.coerce.number().int().positive().default(3600),
    CACHE_CONTROL_PUBLIC: z.string().default('public, max-age=3600'),
    // Bodies of small hot files kept in memory per web process (0 = off), the largest file kept, and
    // the requests within a minute that let a file displace others once the budget is full.
    FILE_MEMORY_CACHE_BYTES: z.coerce.number().int().min(0).default(64 * 1024 * 1024),
    FILE_MEMORY_CACHE_MAX_FILE_BYTES: z.coerce.number().int().min(0).default(512 * 1024),
    FILE_MEMORY_CACHE_MIN_USES: z.coerce.number().int().min(1).default(3),
    RENDITION_CONCURRENCY: positiveInt.default(2),
    RENDITION_MAX_INPUT_PIXELS: positiveInt.default(50_000_000),
    RENDITION_MAX_FRAMES: positiveInt.default(300),
    RENDITION_TIMEOUT_SECONDS: positiveInt.default(20),
    // A front proxy sends the bytes of local files: the service decides and answers the headers only.
    FILE_OFFLOAD: z.enum(['none', 'x-accel-redirect', 'x-sendfile']).default('none'),
    FILE_OFFLOAD_PREFIX: z
      .string()
      .regex(/^\/(?:[\w-]+\/)+$/, { error: 'must be a path like /_hfs_files/' })
      .default('/_hfs_files/'),
    // S3: files of at least this many bytes are answered with a redirect to a presigned URL (unset = off).
    S3_REDIRECT_MIN_BYTES: z.coerce.number().int().min(0).optional(),
    S3_REDIRECT_TTL_SECONDS: z.coerce.number().int().min(10).max(7 * 24 * 3600).default(300),
    VISION_MAX_FILE_SIZE_MB: z.coerce.number().int().positive().default(100),
    VISION_MAX_CONCURRENT_JOBS: z.coerce.number().int().positive().default(2),
    // Model instances of the vision service, a worker thread each (~200 MB; unset: one per core, at most 4).
    VISION_THREADS: positiveInt.max(64).optional(),
    // Frames one model call takes at most when requests wait (1 = one at a time); docs/reference.md.
    VISION_BATCH_SIZE: positiveInt.max(64).default(4),
    MODERATION_ENABLED: bool.default(true),
    // Checks a worker sends to the vision service at once: at least VISION_THREADS × VISION_BATCH_SIZE, or batches never fill.
    MODERATION_CONCURRENCY: positiveInt.max(256).default(8),
    // While a file waits for its verdict: served (false, default) or held back with 451 (true).
    MODERATION_HOLD_PENDING: bool.default(false),
    SSE_HEARTBEAT_MS: z.coerce.number().int().min(100).default(25_000),
    RATE_LIMIT_LOGIN_FAILURES: z.coerce.number().int().positive().default(10),
    CAPTCHA_MAX_NUMBER: z.coerce.number().int().min(10).default(50_000),
    URL_FETCH_TIMEOUT_MS: z.coerce.number().int().positive().default(10 * 60 * 1000),
    // How long an unfinished resumable (tus) upload is kept before it and its parts are removed.
    RESUMABLE_UPLOAD_EXPIRY_SECONDS: z.coerce.number().int().positive().default(24 * 60 * 60),
    MCP_UPLOAD_MAX_BYTES: z.coerce.number().int().positive().max(100 * 1024 * 1024).default(20 * 1024 * 1024),
    ACME_DIRECTORY_URL: z.url({ protocol: /^https$/ }).default('https://acme-v02.api.letsencrypt.org/directory'),
    ACME_EMAIL: z.email().optional(),
    // PEM file of a CA to trust when talking to the ACME server (a private CA, or Pebble in tests).
    ACME_CA_FILE: z.string().optional(),
    // The CA's name in CAA records ("issue" tag): a CAA record that names another CA forbids ours.
    ACME_CAA_IDENTITY: z.string().default('letsencrypt.org'),
    // Resolvers for the custom-domain checks, host[:port] comma-separated; empty: the system's.
    DNS_SERVERS: z
      .string()
      .optional()
      .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean)),
    CUSTOM_DOMAIN_CNAME_TARGET: z.string().optional(),
    // Test-only: origins (e.g. http://127.0.0.1:5123) that URL fetches may reach despite the SSRF rules.
    URL_FETCH_ALLOWED_ORIGINS: z
      .string()
      .transform((v) => v.split(',').map((o) => o.trim()).filter(Boolean))
      .pipe(z.array(z.url()))
      .optional(),
    // Webhooks: seconds before each retry of a failed delivery (Standard Webhooks' schedule, about a day).
    WEBHOOK_RETRY_DELAYS: z
      .string()
      .default('5,300,1800,7200,18000,36000,36000')
      .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean).map(Number))
      .pipe(z.array(z.number({ error: 'must be a comma-separated list of seconds' }).min(0).max(7 * 24 * 3600)).max(50)),
    // A dead worker's jobs wait this long for its lock to lapse; other workers look for them this often.
    WORKER_LOCK_DURATION_MS: z.coerce.number().int().min(1000).default(10_000),
    WORKER_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).default(5_000),
    // CDN purge: a URL template where {url} is replaced by each changed file URL (URL-encoded).
    CDN_PURGE_URL: z.string().includes('{url}', { error: 'must contain {url}' }).optional(),
    CDN_PURGE_METHOD: z.string().regex(/^[A-Z]+$/).default('PURGE'),
    CDN_PURGE_AUTHORIZATION: z.string().optional(),
    // Bearer token that GET /metrics requires; unset = open (keep it off the public internet then).
    METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    // Production refuses an open /metrics unless the operator says so (e.g. it is reachable only inside).
    METRICS_PUBLIC: bool.default(false),
    // SIGTERM/SIGINT: how long in-flight requests and jobs may take before what is left is cut off.
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
    API_KEY_REGENERATIONS_PER_MONTH: z.coerce.number().int().min(0).default(5),
    PLAN_ANONYMOUS_MAX_FILE_SIZE: positiveInt.optional(),
    PLAN_FREE_MAX_FILE_SIZE: positiveInt.optional(),
    PLAN_FREE_DAILY_LIMIT: positiveInt.optional(),
    PLAN_FREE_STORAGE_LIMIT: positiveInt.optional(),
    PLAN_FREE_MAX_FOLDERS: positiveInt.optional(),
    PLAN_PRO_MAX_FILE_SIZE: positiveInt.optional(),
    PLAN_PRO_DAILY_LIMIT: positiveInt.optional(),
    PLAN_PRO_STORAGE_LIMIT: positiveInt.optional(),
  })
  .superRefine((env, ctx) => {
    if (env.FILE_OFFLOAD !== 'none' && env.STORAGE_DRIVER !== 'local') {
      ctx.addIssue({ code: 'custom', path: ['FILE_OFFLOAD'], message: 'needs STORAGE_DRIVER=local (with S3, use S3_REDIRECT_MIN_BYTES)' });
    }
    if (env.S3_REDIRECT_MIN_BYTES !== undefined && env.STORAGE_DRIVER !== 's3') {
      ctx.addIssue({ code: 'custom', path: ['S3_REDIRECT_MIN_BYTES'], message: 'needs STORAGE_DRIVER=s3' });
    }
    if (env.STORAGE_DRIVER === 's3' && !env.S3_BUCKET) {
      ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'required when STORAGE_DRIVER=s3' });
    }
    if (env.URL_FETCH_ALLOWED_ORIGINS?.length && env.NODE_ENV === 'production') {
      ctx.addIssue({ code: 'custom', path: ['URL_FETCH_ALLOWED_ORIGINS'], message: 'is for tests only and refused in production' });
    }
    if (env.NODE_ENV === 'production' && !env.METRICS_TOKEN && !env.METRICS_PUBLIC) {
      ctx.addIssue({
        code: 'custom',
        path: ['METRICS_TOKEN'],
        message: 'required in production, or METRICS_PUBLIC=true to serve GET /metrics to anyone who can reach it',
      });
    }
    if (env.DATABASE_URL && !env.SECRET_KEY) {
      // Every process sharing one database must decrypt the same secrets, so no per-machine default.
      ctx.addIssue({ code: 'custom', path: ['SECRET_KEY'], message: 'required when DATABASE_URL is set' });
    }
  });

export type Env = Record<string, string | undefined>;

/** A problem the operator fixes in the environment: one line on stderr, exit 1, no stack trace. */
export class StartupError extends Error {
  override name = 'StartupError';
}

export class ConfigError extends StartupError {
  override name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
  }
}

export interface ConfigOptions {
  /**
   * The process runs side by side with others of its kind (web, worker), so in production it needs a
   * database they can all reach: PGlite lives inside one process.
   */
  sharedDatabase?: boolean;
}

export function parseConfig(env: Env, options: ConfigOptions = {}) {
  // An empty variable means "not set", as in most .env tooling.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = envSchema.safeParse(present);
  const problems = result.success ? [] : result.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`);
  if (options.sharedDatabase && present.NODE_ENV === 'production' && !present.DATABASE_URL) {
    problems.unshift(
      'DATABASE_URL: required in production: the embedded database (PGlite) serves one process only, so set DATABASE_URL to a PostgreSQL server that every web and worker process shares',
    );
  }
  if (!result.success || problems.length > 0) throw new ConfigError(problems);
  const e = result.data;
  const dataDir = path.resolve(e.DATA_DIR);
  const planOverrides = {
    anonymous: { maxFileSize: e.PLAN_ANONYMOUS_MAX_FILE_SIZE },
    free: {
      maxFileSize: e.PLAN_FREE_MAX_FILE_SIZE,
      dailyLimit: e.PLAN_FREE_DAILY_LIMIT,
      monthlyStorageLimit: e.PLAN_FREE_STORAGE_LIMIT,
      maxFolders: e.PLAN_FREE_MAX_FOLDERS,
    },
    pro: {
      maxFileSize: e.PLAN_PRO_MAX_FILE_SIZE,
      dailyLimit: e.PLAN_PRO_DAILY_LIMIT,
      monthlyStorageLimit: e.PLAN_PRO_STORAGE_LIMIT,
    },
  };
  return {
    env: e.NODE_ENV,
    baseUrl: trimSlash(e.BASE_URL),
    siteUrl: trimSlash(e.SITE_URL ?? e.BASE_URL),
    visionUrl: trimSlash(e.VISION_URL ?? `http://localhost:${e.VISION_PORT}`),
    port: e.PORT,
    webConcurrency: e.WEB_CONCURRENCY,
    visionPort: e.VISION_PORT,
    databaseUrl: e.DATABASE_URL,
    statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    dataDir,
    secretKey: e.SECRET_KEY ?? secretFromDataDir(dataDir),
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    metricsToken: e.METRICS_TOKEN,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    apiKeyRegenerationsPerMonth: e.API_KEY_REGENERATIONS_PER_MONTH,
    rateLimits: {
      uploadsPerMinute: e.RATE_LIMIT_UPLOADS_PER_MINUTE,
      anonymousUploadsPerMinute: e.RATE_LIMIT_ANONYMOUS_UPLOADS_PER_MINUTE,
      loginFailures: e.RATE_LIMIT_LOGIN_FAILURES,
    },
    captchaMaxNumber: e.CAPTCHA_MAX_NUMBER,
    privateLinkTtlSeconds: e.PRIVATE_LINK_TTL_SECONDS,
    sseHeartbeatMs: e.SSE_HEARTBEAT_MS,
    vision: {
      maxFileSizeMb: e.VISION_MAX_FILE_SIZE_MB,
      maxConcurrentJobs: e.VISION_MAX_CONCURRENT_JOBS,
      threads: e.VISION_THREADS ?? Math.min(availableParallelism(), 4),
      batchSize: e.VISION_BATCH_SIZE,
      workDir: path.join(dataDir, 'vision'),
    },
    moderation: { enabled: e.MODERATION_ENABLED, holdPending: e.MODERATION_HOLD_PENDING, concurrency: e.MODERATION_CONCURRENCY },
    cacheControlPublic: e.CACHE_CONTROL_PUBLIC,
    serving: {
      memoryCacheBytes: e.FILE_MEMORY_CACHE_BYTES,
      memoryCacheMaxFileBytes: Math.min(e.FILE_MEMORY_CACHE_MAX_FILE_BYTES, e.FILE_MEMORY_CACHE_BYTES),
      memoryCacheMinUses: e.FILE_MEMORY_CACHE_MIN_USES,
      offload: e.FILE_OFFLOAD === 'none' ? undefined : { mode: e.FILE_OFFLOAD, prefix: e.FILE_OFFLOAD_PREFIX },
      renditions: {
        concurrency: e.RENDITION_CONCURRENCY,
        limits: { maxInputPixels: e.RENDITION_MAX_INPUT_PIXELS, maxFrames: e.RENDITION_MAX_FRAMES, timeoutSeconds: e.RENDITION_TIMEOUT_SECONDS },
      },
      s3Redirect: e.S3_REDIRECT_MIN_BYTES === undefined ? undefined : { minBytes: e.S3_REDIRECT_MIN_BYTES, ttlSeconds: e.S3_REDIRECT_TTL_SECONDS },
    },
    cdnPurge: e.CDN_PURGE_URL
      ? { urlTemplate: e.CDN_PURGE_URL, method: e.CDN_PURGE_METHOD, authorization: e.CDN_PURGE_AUTHORIZATION }
      : undefined,
    // upload_file carries its bytes in the JSON-RPC body (base64): this bounds both.
    mcpUploadMaxBytes: e.MCP_UPLOAD_MAX_BYTES,
    resumableUploadExpiryMs: e.RESUMABLE_UPLOAD_EXPIRY_SECONDS * 1000,
    httpsPort: e.HTTPS_PORT,
    customDomains: {
      acmeDirectoryUrl: e.ACME_DIRECTORY_URL,
      acmeEmail: e.ACME_EMAIL,
      acmeCaFile: e.ACME_CA_FILE,
      caaIdentity: e.ACME_CAA_IDENTITY,
      dnsServers: e.DNS_SERVERS,
      // Where customers point their CNAME: the site's host unless an operator names another.
      cnameTarget: e.CUSTOM_DOMAIN_CNAME_TARGET ?? new URL(e.SITE_URL ?? e.BASE_URL).hostname,
    },
    urlFetch: {
      timeoutMs: e.URL_FETCH_TIMEOUT_MS,
      allowedOrigins: (e.URL_FETCH_ALLOWED_ORIGINS ?? []).map((o) => new URL(o).origin),
    },
    webhooks: { retryDelaysMs: e.WEBHOOK_RETRY_DELAYS.map((seconds) => Math.round(seconds * 1000)) },
    workers: { lockDurationMs: e.WORKER_LOCK_DURATION_MS, stalledIntervalMs: e.WORKER_STALLED_INTERVAL_MS },
    planOverrides,
    storage: {
      driver: e.STORAGE_DRIVER,
      localRoot: path.join(dataDir, 'files'),
      s3: {
        bucket: e.S3_BUCKET ?? '',
        endpoint: e.S3_ENDPOINT,
        region: e.S3_REGION,
        forcePathStyle: e.S3_FORCE_PATH_STYLE,
        accessKeyId: e.S3_ACCESS_KEY_ID,
        secretAccessKey: e.S3_SECRET_ACCESS_KEY,
      },
    },
  };
}

export type Config = ReturnType<typeof parseConfig>;

/** Reads the process environment; on a bad value prints every problem in one message and exits. */
export function loadConfig(options: ConfigOptions = {}): Config {
  try {
    return parseConfig(process.env, options);
  } catch (err) {
    if (err instanceof ConfigError) exitWith(err);
    throw err;
  }
}

/** Prints a startup problem as its one line and exits 1. */
export function exitWith(problem: StartupError): never {
  process.stderr.write(`${problem.message}\n`);
  process.exit(1);
}

/**
 * Fails with one line naming `variable` when `port` is taken (or needs privileges). Entry points check
 * before they start anything, so the operator reads the fix instead of a listen error's stack trace.
 */
export function checkPort(port: number, variable: string, host = '0.0.0.0'): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') reject(new StartupError(`Port ${port} is already in use: stop what listens there, or set ${variable} to a free port`));
      else if (err.code === 'EACCES') reject(new StartupError(`Port ${port} needs privileges: set ${variable} to a port above 1023`));
      else reject(err);
    });
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

function trimSlash(url: string) {
  return url.replace(/\/+$/, '');
}

/** The embedded default keeps one generated secret beside its data, so restarts can decrypt. */
function secretFromDataDir(dataDir: string): string {
  const file = path.join(dataDir, 'secret');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return secret;
}
