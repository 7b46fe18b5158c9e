import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, parseConfig } from '../../shared/config.js';

describe('configuration', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'hfs-config-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('has the documented defaults', () => {
    const config = parseConfig({ DATA_DIR: dataDir });
    expect(config.baseUrl).to.equal('http://localhost:3000');
    expect(config.siteUrl).to.equal('http://localhost:3000');
    expect(config.visionUrl).to.equal('http://localhost:3001');
    expect(config.port).to.equal(3000);
    expect(config.visionPort).to.equal(3001);
    expect(config.redisUrl).to.equal('redis://127.0.0.1:6379');
    expect(config.storage.driver).to.equal('local');
    expect(config.storage.localRoot).to.equal(path.join(dataDir, 'files'));
    expect(config.databaseUrl).to.equal(undefined);
  });

  it('points VISION_URL at the VISION_PORT in use unless VISION_URL is set', () => {
    expect(parseConfig({ DATA_DIR: dataDir, VISION_PORT: '4201' }).visionUrl).to.equal('http://localhost:4201');
    const remote = parseConfig({ DATA_DIR: dataDir, VISION_PORT: '4201', VISION_URL: 'http://vision.internal:8080/' });
    expect(remote.visionUrl).to.equal('http://vision.internal:8080');
  });

  it('generates the embedded secret once into DATA_DIR and reuses it', () => {
    const first = parseConfig({ DATA_DIR: dataDir }).secretKey;
    expect(first).to.have.length(64);
    expect(readFileSync(path.join(dataDir, 'secret'), 'utf8').trim()).to.equal(first);
    expect(parseConfig({ DATA_DIR: dataDir }).secretKey).to.equal(first);
  });

  it('names every offending variable in one error', () => {
    let error: unknown;
    try {
      parseConfig({ DATA_DIR: dataDir, PORT: 'eighty', REDIS_URL: 'http://nope', STORAGE_DRIVER: 'ftp', BASE_URL: 'not a url' });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'REDIS_URL', 'STORAGE_DRIVER', 'BASE_URL']) expect(problems).to.include(name);
  });

  it('requires S3_BUCKET with the s3 driver and SECRET_KEY with DATABASE_URL', () => {
    expect(() => parseConfig({ DATA_DIR: dataDir, STORAGE_DRIVER: 's3' })).to.throw(ConfigError, /S3_BUCKET/);
    expect(() => parseConfig({ DATABASE_URL: 'postgres://localhost/x' })).to.throw(ConfigError, /SECRET_KEY/);
    const ok = parseConfig({ DATABASE_URL: 'postgres://localhost/x', SECRET_KEY: 'k'.repeat(32), DATA_DIR: dataDir });
    expect(ok.secretKey).to.equal('k'.repeat(32));
  });

  it('drains for 30 s on SIGTERM unless SHUTDOWN_TIMEOUT_MS says otherwise', () => {
    expect(parseConfig({ DATA_DIR: dataDir }).shutdownTimeoutMs).to.equal(30_000);
    expect(parseConfig({ DATA_DIR: dataDir, SHUTDOWN_TIMEOUT_MS: '5000' }).shutdownTimeoutMs).to.equal(5000);
    expect(() => parseConfig({ DATA_DIR: dataDir, SHUTDOWN_TIMEOUT_MS: 'soon' })).to.throw(ConfigError, /SHUTDOWN_TIMEOUT_MS/);
  });

  describe('in production (NODE_ENV=production)', () => {
    const production = () => ({ DATA_DIR: dataDir, NODE_ENV: 'production' });

    it('refuses an open /metrics, naming METRICS_TOKEN and METRICS_PUBLIC', () => {
      expect(() => parseConfig(production())).to.throw(ConfigError, /METRICS_TOKEN.*METRICS_PUBLIC=true/);
      expect(parseConfig({ ...production(), METRICS_TOKEN: 't'.repeat(16) }).metricsToken).to.equal('t'.repeat(16));
      expect(parseConfig({ ...production(), METRICS_PUBLIC: 'true' }).metricsToken).to.equal(undefined);
      // Outside production /metrics may stay open without saying so.
      expect(parseConfig({ DATA_DIR: dataDir }).metricsToken).to.equal(undefined);
    });

    it('refuses the embedded database to processes that run side by side (web, worker), and only to them', () => {
      const env = { ...production(), METRICS_PUBLIC: 'true' };
      expect(() => parseConfig(env, { sharedDatabase: true })).to.throw(ConfigError, /DATABASE_URL: .*PGlite.* one process/);
      expect(parseConfig(env).databaseUrl).to.equal(undefined);
      expect(parseConfig({ DATA_DIR: dataDir }, { sharedDatabase: true }).databaseUrl).to.equal(undefined);
      const shared = parseConfig({ ...env, DATABASE_URL: 'postgres://db/hfs', SECRET_KEY: 'k'.repeat(32) }, { sharedDatabase: true });
      expect(shared.databaseUrl).to.equal('postgres://db/hfs');
    });

    it('refuses the test-only SSRF allowlist', () => {
      expect(() => parseConfig({ ...production(), METRICS_PUBLIC: 'true', URL_FETCH_ALLOWED_ORIGINS: 'http://127.0.0.1:5000' })).to.throw(
        ConfigError,
        /URL_FETCH_ALLOWED_ORIGINS/,
      );
    });
  });

  it('treats empty variables as unset', () => {
    expect(parseConfig({ DATA_DIR: dataDir, PORT: '', SITE_URL: '' }).port).to.equal(3000);
  });

  it('stops a process at boot with one message naming each bad variable', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '-1', LOG_LEVEL: 'loud' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).to.equal(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(/^Invalid configuration: /).and.include('PORT').and.include('LOG_LEVEL');
  });
});
