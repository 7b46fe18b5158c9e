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
