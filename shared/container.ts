import type { Config } from './config.js';
import { SecretBox } from './crypto.js';
import type { DatabaseHandle } from './db/client.js';
import { openDatabase } from './db/open-database.js';
import { JobQueues } from './jobs.js';
import { createHealth } from './dependency-health.js';
import { createLogger, type Logger } from './logger.js';
import { Plans } from './plans.js';
import { createRedis } from './redis.js';
import { createRateLimits } from './rate-limits.js';
import { AccountRepository } from './repositories/account.repository.js';
import { CustomDomainRepository } from './repositories/custom-domain.repository.js';
import { DropLinkRepository } from './repositories/drop-link.repository.js';
import { ShareLinkRepository } from './repositories/share-link.repository.js';
import { FileMaintenanceRepository } from './repositories/file-maintenance.repository.js';
import { FileRepository } from './repositories/file.repository.js';
import { HealthRepository } from './repositories/health.repository.js';
import { FolderKeyRepository } from './repositories/folder-key.repository.js';
import { FolderRepository } from './repositories/folder.repository.js';
import { NotificationRepository } from './repositories/notification.repository.js';
import { OAuthConnectionRepository } from './repositories/oauth-connection.repository.js';
import { OAuthModelRepository } from './repositories/oauth-model.repository.js';
import { PollRepository } from './repositories/poll.repository.js';
import { PublicFileRepository } from './repositories/public-file.repository.js';
import { SessionRepository } from './repositories/session.repository.js';
import { UploadChargeRepository } from './repositories/upload-charge.repository.js';
import { AccountService } from './services/accounts/account.service.js';
import { AlbumService } from './services/folders/album.service.js';
import { AuthService } from './services/accounts/auth.service.js';
import { CaptchaService } from './services/accounts/captcha.service.js';
import { AcmeIssuer } from './services/custom-domains/acme-issuer.js';
import { CustomDomainService } from './services/custom-domains/custom-domain.service.js';
import { DnsChecker } from './services/custom-domains/dns-checker.js';
import { DomainDirectory } from './services/custom-domains/domain-directory.js';
import { HttpChallenges } from './services/custom-domains/http-challenges.js';
import { SessionService } from './services/accounts/session.service.js';
import { UrlFormatService } from './services/files/url-format.service.js';
import { CachePurgeService } from './services/files/cache-purge.service.js';
import { DashboardService } from './services/files/dashboard.service.js';
import { FileRecords } from './services/files/file-records.js';
import { DropLinkService } from './services/folders/drop-link.service.js';
import { ShareLinkService } from './services/folders/share-link.service.js';
import { FileBodyCache } from './services/files/file-body-cache.js';
import { FileBrowserService } from './services/files/file-browser.service.js';
import { FileCache } from './services/files/file-cache.js';
import { AccessTokenRepository } from './repositories/access-token.repository.js';
import { AccessTokenService } from './services/accounts/access-token.service.js';
import { CredentialService } from './services/accounts/credential.service.js';
import { FolderKeyService } from './services/folders/folder-key.service.js';
import { FolderService } from './services/folders/folder.service.js';
import { ModerationService } from './services/moderation/moderation.service.js';
import { NotificationService } from './services/notifications/notification.service.js';
import { AuthorizationStore } from './services/assistants/authorization-store.js';
import { ConnectionService } from './services/assistants/connection.service.js';
import { mcpResourceOf } from './services/assistants/mcp-resource.js';
import { IntegrityService } from './services/files/integrity.service.js';
import { OrphanSweepService } from './services/files/orphan-sweep.service.js';
import { PollService } from './services/notifications/poll.service.js';
import { ReadinessService } from './services/health/readiness.service.js';
import { FileUrls } from './services/files/file-urls.js';
import { FileService } from './services/files/file.service.js';
import { HostedFileService } from './services/files/hosted-file.service.js';
import { SiteSessionService } from './services/accounts/site-session.service.js';
import { EmbedService } from './services/media/embed.service.js';
import { ImageSizeReader } from './services/media/image-size-reader.js';
import { ThumbnailService } from './services/media/thumbnails/thumbnail.service.js';
import { RenditionService } from './services/media/renditions/rendition.service.js';
import { UploadAuthService } from './services/uploads/upload-auth.service.js';
import { UploadService } from './services/uploads/upload.service.js';
import { UploaderConfigService } from './services/uploads/uploader-config.service.js';
import { UrlUploadService } from './services/uploads/url-upload.service.js';
import { createStorage, createTusStore } from './storage/index.js';
import { TusResultService } from './services/uploads/tus-result.service.js';
import { TusResultRepository } from './repositories/tus-result.repository.js';
import { WebhookDeliveryRepository } from './repositories/webhook-delivery.repository.js';
import { WebhookEndpointRepository } from './repositories/webhook-endpoint.repository.js';
import { DomainEvents } from './services/webhooks/domain-events.js';
import { WebhookDeliveryService } from './services/webhooks/webhook-delivery.service.js';
import { WebhookService } from './services/webhooks/webhook.service.js';

export interface ContainerOptions {
  /** An already open database (tests hand in a per-file clone). */
  database?: DatabaseHandle;
  logger?: Logger;
  /** The admin CLI needs no Redis for most commands; it connects on first use instead. */
  connectRedis?: boolean;
  /** The web process: its statements are bounded by DB_STATEMENT_TIMEOUT_MS (workers' sweeps may take longer). */
  servesRequests?: boolean;
}

/**
 * Wires config, engines, repositories and services once per process. The API, the workers, the
 * admin CLI and the tests all build the same container, so they run the same services.
 */
export async function createContainer(config: Config, options: ContainerOptions = {}) {
  const logger = options.logger ?? createLogger(config.logLevel);
  const health = createHealth(logger);
  const database = options.database ?? (await openDatabase(config, options.servesRequests ? config.statementTimeoutMs : undefined));
  database.watch?.(health.postgres);
  const redis = createRedis(config.redisUrl, 'client', health.redis);
  // A Redis that does not answer yet is no reason to exit: the connection retries on its own, and until
  // it is back the web process is not ready (/readyz, changes answer 503) and the workers wait.
  if (options.connectRedis !== false) await redis.connect().catch(() => undefined);
  const storage = createStorage(config.storage);
  // Resumable uploads collect here until they finish (web) or expire (the worker's sweep).
  const tusStore = createTusStore(config, redis);
  const jobs = new JobQueues(redis, config.redisPrefix, (err) => health.redis.failed(err));
  const box = new SecretBox(config.secretKey);
  const plans = new Plans(config.planOverrides);

  const urls = new FileUrls(config.siteUrl, config.baseUrl, box, config.privateLinkTtlSeconds);
  const rateLimits = createRateLimits(redis, config);

  const repositories = {
    accounts: new AccountRepository(database.db),
    files: new FileRepository(database.db),
    // Statements that take no owner: handed only to the services that serve, expire and moderate.
    publicFiles: new PublicFileRepository(database.db),
    fileMaintenance: new FileMaintenanceRepository(database.db),
    charges: new UploadChargeRepository(database.db),
    folders: new FolderRepository(database.db),
    folderKeys: new FolderKeyRepository(database.db),
    sessions: new SessionRepository(database.db),
    notifications: new NotificationRepository(database.db),
    polls: new PollRepository(database.db),
    dropLinks: new DropLinkRepository(database.db),
    shareLinks: new ShareLinkRepository(database.db),
    oauthModels: new OAuthModelRepository(database.db),
    oauthConnections: new OAuthConnectionRepository(database.db),
    customDomains: new CustomDomainRepository(database.db),
    health: new HealthRepository(database.db),
    tusResults: new TusResultRepository(database.db),
    webhookEndpoints: new WebhookEndpointRepository(database.db),
    webhookDeliveries: new WebhookDeliveryRepository(database.db),
    accessTokens: new AccessTokenRepository(database.db),
  };
  const fileCache = new FileCache(new FileBodyCache(config.serving.memoryCacheBytes, config.serving.memoryCacheMaxFileBytes, config.serving.memoryCacheMinUses));
  const accounts = new AccountService(repositories.accounts, plans, box, config.apiKeyRegenerationsPerMonth, urls.ownLabels(), (id) =>
    repositories.customDomains.findByAccount(id),
  );
  const folders = new FolderService(repositories.folders, plans, config.siteUrl);
  const folderKeys = new FolderKeyService(repositories.folderKeys, folders, plans, box);
  const sessions = new SessionService(repositories.sessions);
  const accessTokens = new AccessTokenService(repositories.accessTokens);
  const credentials = new CredentialService(accounts, accessTokens, sessions);
  const uploadAuth = new UploadAuthService(credentials, folderKeys, folders);
  const captcha = new CaptchaService(box.sign('altcha-hmac-key'), redis, config.redisPrefix, config.captchaMaxNumber);
  const renditions = new RenditionService({ storage, ...config.serving.renditions });
  const cachePurges = new CachePurgeService({ cache: fileCache, jobs, redis, urls, renditions, logger, health: health.redis, config });
  const notifications = new NotificationService(repositories.notifications, redis, jobs, config.redisPrefix);
  // How services tell webhook endpoints what happened. `records` is built further down (it needs moderation,
  // which emits file.quarantined) and is read only when an event is emitted.
  const events: DomainEvents = new DomainEvents({ deliveries: repositories.webhookDeliveries, jobs, logger, recordOf: (file, owner) => records.of(file, owner) });
  const domainDirectory = new DomainDirectory({ domains: repositories.customDomains, box, redis, channel: `${config.redisPrefix}:custom-domains`, logger });
  const customDomains = new CustomDomainService({
    domains: repositories.customDomains,
    plans,
    issuer: new AcmeIssuer({ directoryUrl: config.customDomains.acmeDirectoryUrl, email: config.customDomains.acmeEmail, caFile: config.customDomains.acmeCaFile }, repositories.customDomains, box),
    dns: new DnsChecker(config.customDomains.dnsServers),
    box,
    directory: domainDirectory,
    challenges: new HttpChallenges(redis, config.redisPrefix),
    notifications,
    jobs,
    logger,
    settings: {
      cnameTarget: config.customDomains.cnameTarget,
      caaIdentity: config.customDomains.caaIdentity,
      ownHosts: [...new Set([new URL(config.siteUrl).hostname, new URL(config.baseUrl).hostname])],
    },
  });
  const moderation = new ModerationService({
    files: repositories.fileMaintenance,
    accounts: repositories.accounts,
    storage,
    jobs,
    notifications,
    purges: cachePurges,
    events,
    logger,
    config: { visionUrl: config.visionUrl, ...config.moderation },
  });
  const hosted = new HostedFileService(repositories.files, repositories.publicFiles, repositories.accounts, storage, fileCache, moderation);
  const sizes = new ImageSizeReader(storage);
  const integrity = new IntegrityService({ files: repositories.fileMaintenance, storage, logger });
  const thumbnails = new ThumbnailService({ files: repositories.fileMaintenance, storage, hosted, moderation, jobs, logger, sizes, siteUrl: config.siteUrl, urls });
  const records = new FileRecords({ urls, moderation, thumbnails });
  const uploads = new UploadService({
    rates: rateLimits,
    storage,
    charges: repositories.charges,
    plans,
    urls,
    jobs,
    moderation,
    thumbnails,
    events,
    logger,
    baseUrl: config.baseUrl,
  });
  const albums = new AlbumService({
    folders: repositories.folders,
    publicFiles: repositories.publicFiles,
    storage,
    moderation,
    thumbnails,
    urls,
    events,
    logger,
    siteUrl: config.siteUrl,
  });
  const shareLinks = new ShareLinkService({
    links: repositories.shareLinks,
    files: repositories.files,
    folders: repositories.folders,
    albums,
    hosted,
    box,
    wrongPasswords: rateLimits.sharePasswordFailures,
    siteUrl: config.siteUrl,
  });
  const authorizationStore = new AuthorizationStore(repositories.oauthModels, repositories.accounts, box);
  const services = {
    accounts,
    notifications,
    moderation,
    polls: new PollService(repositories.polls, async (id) => (await repositories.accounts.findById(id))?.username ?? null),
    sessions,
    accessTokens,
    credentials,
    captcha,
    auth: new AuthService({ accounts, accountRows: repositories.accounts, captcha, sessions, rateLimits }),
    folders,
    folderKeys,
    albums,
    embeds: new EmbedService({ hosted, albums, shareLinks, thumbnails, sizes, siteUrl: config.siteUrl }),
    uploadAuth,
    uploads,
    cachePurges,
    urlUploads: new UrlUploadService({ jobs, uploads, uploadAuth, accounts: repositories.accounts, health: health.redis, config }),
    files: new FileService({
      files: repositories.files,
      maintenance: repositories.fileMaintenance,
      folders,
      accounts: repositories.accounts,
      uploads,
      purges: cachePurges,
      moderation,
      thumbnails,
      urls,
      plans,
      jobs,
      events,
      logger,
    }),
    fileBrowser: new FileBrowserService({ files: repositories.files, folders, storage, moderation, records }),
    urlFormats: new UrlFormatService(repositories.accounts, urls, plans),
    customDomains,
    domainDirectory,
    dashboard: new DashboardService({ files: repositories.files, accountRows: repositories.accounts, accounts, folders, folderKeys, records }),
    hosted,
    renditions,
    thumbnails,
    siteSessions: new SiteSessionService(box, new URL(config.siteUrl).origin),
    connections: new ConnectionService({
      connections: repositories.oauthConnections,
      models: repositories.oauthModels,
      resource: mcpResourceOf(config.baseUrl),
    }),
    authorizationStore,
    uploaderConfigs: new UploaderConfigService(accounts, folderKeys, accessTokens, config.baseUrl),
    integrity,
    orphanSweep: new OrphanSweepService({ files: repositories.fileMaintenance, storage, resumable: tusStore, integrity, logger }),
    tusResults: new TusResultService(repositories.tusResults, box),
    readiness: new ReadinessService({ database: repositories.health, redis, storage, moderation: { enabled: config.moderation.enabled, visionUrl: config.visionUrl } }),
    shareLinks,
    dropLinks: new DropLinkService({
      links: repositories.dropLinks,
      accounts: repositories.accounts,
      folders,
      uploads,
      uploadAuth,
      notifications,
      records,
      events,
      box,
      siteUrl: config.siteUrl,
      logger,
    }),
    events,
    webhooks: new WebhookService({
      endpoints: repositories.webhookEndpoints,
      deliveries: repositories.webhookDeliveries,
      events,
      box,
      allowedOrigins: config.urlFetch.allowedOrigins,
    }),
    webhookDeliveries: new WebhookDeliveryService({
      deliveries: repositories.webhookDeliveries,
      events,
      jobs,
      box,
      notifications,
      logger,
      settings: { retryDelaysMs: config.webhooks.retryDelaysMs, allowedOrigins: config.urlFetch.allowedOrigins, siteUrl: config.siteUrl },
    }),
  };

  return {
    config,
    logger,
    health,
    database,
    db: database.db,
    redis,
    storage,
    tusStore,
    jobs,
    box,
    plans,
    urls,
    rateLimits,
    repositories,
    services,
    async close() {
      await services.urlUploads.close();
      await jobs.close();
      if (redis.status !== 'wait' && redis.status !== 'end') await redis.quit().catch(() => redis.disconnect());
      await storage.close?.();
      await database.close();
    },
  };
}

export type Container = Awaited<ReturnType<typeof createContainer>>;
