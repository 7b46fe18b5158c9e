import { expect } from 'chai';
import { request } from 'node:https';
import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import * as acme from 'acme-client';
import { startWebServer } from '../../api/server.js';
import { AcmeIssuer } from '../../shared/services/custom-domains/acme-issuer.js';
import { createContainer } from '../../shared/container.js';
import { createLogger } from '../../shared/logger.js';
import { pngBytes } from '../helpers/media.js';
import { type Pebble, startPebble } from '../helpers/pebble.js';
import { freePort } from '../helpers/ports.js';
import { eventually } from '../helpers/eventually.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { getWithHost, upload } from '../helpers/uploads.js';

const CNAME_TARGET = 'edge.hosted.test';

/** GET over TLS to 127.0.0.1 with `servername` as SNI and Host, trusting only `ca`; the peer certificate too. */
function httpsGet(port: number, servername: string, path: string, ca: string) {
  return new Promise<{ status: number; body: Buffer; certificate: X509Certificate }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, servername, headers: { host: `${servername}:${port}` }, ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      const certificate = (res.socket as TLSSocket).getPeerX509Certificate()!;
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks), certificate }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('custom domains end to end: Pebble, DNS through challtestsrv, HTTPS by SNI', function () {
  this.timeout(120_000);
  let pebble: Pebble;
  let env: TestEnv;
  let second: { close(): Promise<void>; httpsPort: number };
  let httpsPort: number;
  let root: string;

  before(async () => {
    const webPort = await freePort();
    httpsPort = await freePort();
    // Short-lived certificates: every one is within the renewal window at once.
    pebble = await startPebble({ httpPort: webPort, certificateValidityPeriod: 600 });
    root = await pebble.rootCertificate();
    env = await createTestEnv({
      port: webPort,
      workers: true,
      env: {
        HTTPS_PORT: String(httpsPort),
        ACME_DIRECTORY_URL: pebble.directoryUrl,
        ACME_CA_FILE: pebble.caCertPath,
        ACME_CAA_IDENTITY: 'pebble.test',
        DNS_SERVERS: pebble.dnsServer,
        CUSTOM_DOMAIN_CNAME_TARGET: CNAME_TARGET,
      },
    });
    // A second web process of the same service, with its own TLS port.
    const secondHttps = await freePort();
    const container = await createContainer({ ...env.container.config, httpsPort: secondHttps }, { database: { ...env.container.database, close: async () => undefined }, logger: createLogger('silent') });
    const web = await startWebServer(container, await freePort(), '127.0.0.1');
    second = {
      httpsPort: secondHttps,
      async close() {
        await web.close();
        await container.close();
      },
    };
  });
  after(async () => {
    await second?.close();
    await env?.close();
    await pebble?.stop();
  });

  const verify = (key: string) => env.api.post('/api/user/custom-domain/verify', { key });

  it('goes from records to an active domain with a certificate, served over HTTPS by both web processes and renewed without the user', async () => {
    const pro = await env.createAccount({ plan: 'pro' });
    const domain = 'shop.example.test';
    const added = await env.api.post('/api/user/custom-domain', { key: pro.apiKey, json: { domain: 'Shop.Example.TEST.' } });
    expect(added.status).to.equal(200);
    const config = added.body.data;
    expect(config).to.include({ customDomain: domain, customDomainStatus: 'pending', cnameTarget: CNAME_TARGET, txtRecordName: `_hfs-verify.${domain}` });
    expect(config.sslValidationRecords).to.have.length(1);
    expect(config.sslValidationRecords[0].txt_name).to.equal(`_acme-challenge.${domain}`);

    // Nothing published yet: every check false, still pending.
    const nothing = await verify(pro.apiKey);
    expect(nothing.body.data).to.include({ customDomainStatus: 'pending' });
    expect(nothing.body.data.dnsChecks).to.deep.equal({ cname: false, txt_val: false, ssl_val_0: false });

    // The CNAME and a wrong ownership value: the CNAME holds, the TXT does not.
    await pebble.setCname(domain, CNAME_TARGET);
    await pebble.setTxt(config.txtRecordName, 'hfs-verify=wrong');
    const wrong = await verify(pro.apiKey);
    expect(wrong.body.data.dnsChecks).to.deep.equal({ cname: true, txt_val: false, ssl_val_0: false });
    expect(wrong.body.data.customDomainStatus).to.equal('pending');
    // Seen against expected, also on GET, with the time of the next automatic check.
    const shown = (await env.api.get('/api/user/custom-domain', { key: pro.apiKey })).body.data;
    expect(shown.records.find((r: { name: string }) => r.name === config.txtRecordName)).to.deep.include({ type: 'TXT', expected: config.txtRecordValue, seen: ['hfs-verify=wrong'], ok: false });
    expect(shown.records.find((r: { type: string }) => r.type === 'CNAME')).to.deep.include({ expected: CNAME_TARGET, seen: [CNAME_TARGET], ok: true });
    expect(Date.parse(shown.nextCheckAt)).to.be.greaterThan(Date.now());

    await pebble.clearTxt(config.txtRecordName);
    await pebble.setTxt(config.txtRecordName, config.txtRecordValue);
    await pebble.setTxt(config.sslValidationRecords[0].txt_name, config.sslValidationRecords[0].txt_value);
    const active = await verify(pro.apiKey);
    expect(active.status).to.equal(200);
    expect(active.body.data).to.include({ customDomain: domain, customDomainStatus: 'active', providerStatus: 'active', sslStatus: 'active' });
    expect(active.body.data.dnsChecks).to.deep.equal({ cname: true, txt_val: true, ssl_val_0: true });
    expect((await env.api.get('/api/auth/me', { key: pro.apiKey })).body.data.user).to.include({ customDomain: domain, customDomainStatus: 'active' });

    // A file of the account over HTTPS on its domain, from both processes, trusting Pebble's root only.
    const bytes = pngBytes(300, 11);
    const uploaded = await upload(env, { key: pro.apiKey, bytes, name: 'sign.png', json: true });
    const filename = uploaded.body.data.filename as string;
    const served: X509Certificate[] = [];
    for (const port of [httpsPort, second.httpsPort]) {
      const res = await httpsGet(port, domain, `/${filename}`, root);
      expect(res.status).to.equal(200);
      expect(res.body.equals(bytes)).to.equal(true);
      expect(res.certificate.subjectAltName).to.include(`DNS:${domain}`);
      served.push(res.certificate);
    }
    // Plain HTTP on the domain goes to HTTPS.
    const plain = await getWithHost(`http://${domain}/${filename}`, {}, 'GET', Number(new URL(env.web.url).port));
    expect(plain.status).to.equal(301);
    expect(plain.headers.location).to.equal(`https://${domain}:${httpsPort}/${filename}`);

    // Renewal over HTTP-01: the name points at us (A record), the CA reaches our HTTP port.
    await pebble.addA(domain, '127.0.0.1');
    await pebble.clearCname(domain);
    // The scheduled job, as the daily schedule runs it, on the test's worker.
    await env.container.jobs.add('domains.renew', {});
    for (const port of [httpsPort, second.httpsPort]) {
      await eventually(async () => (await httpsGet(port, domain, `/${filename}`, root)).certificate.serialNumber !== served[0]!.serialNumber, 30_000);
      expect((await httpsGet(port, domain, `/${filename}`, root)).status).to.equal(200);
    }

    // The custom URL style is now selectable: new uploads get links on the domain.
    expect((await env.api.post('/api/user/subdomain', { key: pro.apiKey, json: { format: 'custom' } })).status).to.equal(200);
    const custom = await upload(env, { key: pro.apiKey, bytes: pngBytes(200, 12), name: 'custom.png', json: true });
    const customName = custom.body.data.filename as string;
    expect(custom.body.data.url).to.equal(`https://${domain}/${customName}`);

    // Removed: its links fall back to the subdomain, and the name gets no certificate any more.
    expect((await env.api.delete('/api/user/custom-domain', { key: pro.apiKey })).status).to.equal(200);
    const listed = (await env.api.get('/api/user/dashboard', { key: pro.apiKey })).body.data.uploads.find((u: { filename: string }) => u.filename === customName);
    expect(listed.url).to.equal(`${env.container.urls.subdomainBase(pro.username)}/${customName}`);
    for (const port of [httpsPort, second.httpsPort]) {
      const refused = await httpsGet(port, domain, `/${customName}`, root).then(() => 'served', (err: Error) => err.message);
      expect(refused).to.not.equal('served');
    }
  });

  it('names the CAA record that would let our CA issue, and stays pending', async () => {
    const pro = await env.createAccount({ plan: 'pro' });
    const domain = 'caa.example.test';
    const { data } = (await env.api.post('/api/user/custom-domain', { key: pro.apiKey, json: { domain } })).body;
    await pebble.setCname(domain, CNAME_TARGET);
    await pebble.setTxt(data.txtRecordName, data.txtRecordValue);
    await pebble.setTxt(data.sslValidationRecords[0].txt_name, data.sslValidationRecords[0].txt_value);
    await pebble.setCaa('example.test', [{ tag: 'issue', value: 'other-ca.example' }]);
    try {
      const res = await verify(pro.apiKey);
      expect(res.body.data.customDomainStatus).to.equal('pending');
      expect(res.body.data.problems.join(' ')).to.include('example.test. CAA 0 issue "pebble.test"');
    } finally {
      await pebble.clearCaa('example.test');
    }
  });

  it('treats a SERVFAIL as "not known yet": pending, with the failure said', async () => {
    const pro = await env.createAccount({ plan: 'pro' });
    const domain = 'flaky.example.test';
    await env.api.post('/api/user/custom-domain', { key: pro.apiKey, json: { domain } });
    await pebble.setServfail(domain);
    try {
      const res = await verify(pro.apiKey);
      expect(res.body.data.customDomainStatus).to.equal('pending');
      expect(res.body.data.problems.join(' ')).to.match(/SERVFAIL|ESERVFAIL/i);
      expect(await env.container.services.customDomains.checkScheduled((await env.container.services.accounts.getByUsername(pro.username)).id, domain, 0)).to.equal('pending');
    } finally {
      await pebble.clearServfail(domain);
    }
  });

  it('checks a pending domain without the user: the same job again later while pending, then active', async () => {
    const pro = await env.createAccount({ plan: 'pro' });
    const accountId = (await env.container.services.accounts.getByUsername(pro.username)).id;
    const domain = 'scheduled.example.test';
    const { data } = (await env.api.post('/api/user/custom-domain', { key: pro.apiKey, json: { domain } })).body;
    const queue = env.container.jobs.queue('domains');
    const job = await env.container.jobs.add('domain.check', { accountId, domain, attempt: 0 }, { jobId: `test-${domain}` });
    // Nothing published: the job puts itself back, delayed, as its next attempt.
    await eventually(async () => {
      const again = await queue.getJob(job.id!);
      return again?.data.attempt === 1 && (await again.isDelayed());
    });
    await pebble.setCname(domain, CNAME_TARGET);
    await pebble.setTxt(data.txtRecordName, data.txtRecordValue);
    await pebble.setTxt(data.sslValidationRecords[0].txt_name, data.sslValidationRecords[0].txt_value);
    await (await queue.getJob(job.id!))!.promote();
    await eventually(async () => (await env.api.get('/api/user/custom-domain', { key: pro.apiKey })).body.data.customDomainStatus === 'active', 30_000);
    // The owner hears of it (written by the job just after the status).
    const notified = async () => ((await env.api.get('/api/user/notifications', { key: pro.apiKey })).body.data.notifications as { type: string }[]).map((n) => n.type);
    await eventually(async () => (await notified()).includes('custom_domain'));
  });

  it('refuses a domain another account holds (409), and forgets a removed one', async () => {
    const first = await env.createAccount({ plan: 'pro' });
    const other = await env.createAccount({ plan: 'pro' });
    expect((await env.api.post('/api/user/custom-domain', { key: first.apiKey, json: { domain: 'taken.example.test' } })).status).to.equal(200);
    expect((await env.api.post('/api/user/custom-domain', { key: other.apiKey, json: { domain: 'TAKEN.example.test' } })).status).to.equal(409);
    expect((await env.api.post('/api/user/custom-domain', { key: first.apiKey, json: { domain: 'second.example.test' } })).status).to.equal(409);
    const removed = await env.api.delete('/api/user/custom-domain', { key: first.apiKey });
    expect(removed.status).to.equal(200);
    expect((await env.api.get('/api/user/custom-domain', { key: first.apiKey })).body.data.customDomain).to.equal(null);
    expect((await env.api.post('/api/user/custom-domain', { key: other.apiKey, json: { domain: 'taken.example.test' } })).status).to.equal(200);
  });

  it('keeps one ACME account across processes: a restarted one finds it by the stored key (no contact to update)', async () => {
    // The service's ACME account exists at the CA before the "restart" (an add opens an order under it).
    expect((await env.api.post('/api/user/custom-domain', { key: (await env.createAccount({ plan: 'pro' })).apiKey, json: { domain: 'before.example.test' } })).status).to.equal(200);
    const { config, repositories, box } = env.container;
    const restarted = new AcmeIssuer({ directoryUrl: config.customDomains.acmeDirectoryUrl, caFile: config.customDomains.acmeCaFile }, repositories.customDomains, box);
    const order = await restarted.startDns01('restart.example.test');
    expect(order.txtValue).to.be.a('string').and.not.equal('');
    expect(config.customDomains.acmeEmail).to.equal(undefined);
  });
});

describe('custom domains when the CA reuses an authorization it still holds valid (as RFC 8555 allows)', function () {
  this.timeout(60_000);
  let pebble: Pebble;
  let env: TestEnv;

  before(async () => {
    const webPort = await freePort();
    // Every new order of the same account and name comes back already authorized.
    pebble = await startPebble({ httpPort: webPort, certificateValidityPeriod: 600, authzReusePercent: 100 });
    env = await createTestEnv({
      port: webPort,
      env: { ACME_DIRECTORY_URL: pebble.directoryUrl, ACME_CA_FILE: pebble.caCertPath, ACME_CAA_IDENTITY: 'pebble.test', DNS_SERVERS: pebble.dnsServer, CUSTOM_DOMAIN_CNAME_TARGET: CNAME_TARGET },
    });
  });
  after(async () => {
    await env?.close();
    await pebble?.stop();
  });

  it('renews without a challenge, and a domain added again keeps its TXT value and activates at once', async () => {
    const pro = await env.createAccount({ plan: 'pro' });
    const accountId = (await env.container.services.accounts.getByUsername(pro.username)).id;
    const domain = 'again.example.test';
    const { data } = (await env.api.post('/api/user/custom-domain', { key: pro.apiKey, json: { domain } })).body;
    await pebble.setCname(domain, CNAME_TARGET);
    await pebble.setTxt(data.txtRecordName, data.txtRecordValue);
    await pebble.setTxt(data.sslValidationRecords[0].txt_name, data.sslValidationRecords[0].txt_value);
    expect((await verify()).customDomainStatus).to.equal('active');
    const first = await env.container.repositories.customDomains.findByAccount(accountId);

    // The name has no A record, so HTTP-01 could not pass: the renewal relies on the reused authorization.
    expect(await env.container.services.customDomains.renewDue(new Date(Date.now() + 365 * 86_400_000))).to.equal(1);
    const renewed = await env.container.repositories.customDomains.findByAccount(accountId);
    expect(renewed!.certificatePem).to.be.a('string').and.not.equal(first!.certificatePem);

    // Removed and added again: the CA shows the DNS-01 challenge that proved the name, so the same TXT value.
    expect((await env.api.delete('/api/user/custom-domain', { key: pro.apiKey })).status).to.equal(200);
    const again = await env.api.post('/api/user/custom-domain', { key: pro.apiKey, json: { domain } });
    expect(again.status).to.equal(200);
    expect(again.body.data.sslValidationRecords[0].txt_value).to.equal(data.sslValidationRecords[0].txt_value);
    await pebble.clearTxt(data.txtRecordName);
    await pebble.setTxt(again.body.data.txtRecordName, again.body.data.txtRecordValue);
    expect((await verify()).customDomainStatus).to.equal('active');

    async function verify() {
      return (await env.api.post('/api/user/custom-domain/verify', { key: pro.apiKey })).body.data as { customDomainStatus: string };
    }
  });

  it('gives up an authorization proved over HTTP-01 (a renewal) when the name is added again, so the customer proves it by a fresh TXT', async () => {
    const pro = await env.createAccount({ plan: 'pro' });
    const domain = 'renewed.example.test';
    const first = await add();
    await pebble.setCname(domain, CNAME_TARGET);
    await pebble.setTxt(first.txtRecordName, first.txtRecordValue);
    await pebble.setTxt(first.sslValidationRecords[0].txt_name, first.sslValidationRecords[0].txt_value);
    expect((await verify()).customDomainStatus).to.equal('active');

    // The DNS-01 authorization lapses at the CA, so the renewal proves the name over HTTP-01 (the name points at us).
    await lapseAuthorization(domain);
    await pebble.clearCname(domain);
    await pebble.addA(domain, '127.0.0.1');
    const accountId = (await env.container.services.accounts.getByUsername(pro.username)).id;
    const issued = await env.container.repositories.customDomains.findByAccount(accountId);
    await env.container.services.customDomains.renewDue(new Date(Date.now() + 365 * 86_400_000));
    expect((await env.container.repositories.customDomains.findByAccount(accountId))!.certificatePem).to.be.a('string').and.not.equal(issued!.certificatePem);

    // Removed and added again: the CA's valid authorization shows only its HTTP-01 challenge, which has no TXT value.
    expect((await env.api.delete('/api/user/custom-domain', { key: pro.apiKey })).status).to.equal(200);
    const again = await add();
    expect(again.sslValidationRecords[0].txt_value).to.be.a('string').and.not.equal(first.sslValidationRecords[0].txt_value);
    await pebble.clearA(domain);
    await pebble.setCname(domain, CNAME_TARGET);
    await pebble.setTxt(again.txtRecordName, again.txtRecordValue);
    // Only the earlier TXT value is published: not proved yet.
    expect((await verify()).customDomainStatus).to.equal('pending');
    await pebble.setTxt(again.sslValidationRecords[0].txt_name, again.sslValidationRecords[0].txt_value);
    expect((await verify()).customDomainStatus).to.equal('active');

    async function add() {
      const res = await env.api.post('/api/user/custom-domain', { key: pro.apiKey, json: { domain } });
      expect(res.status).to.equal(200);
      return res.body.data as { txtRecordName: string; txtRecordValue: string; sslValidationRecords: [{ txt_name: string; txt_value: string }] };
    }
    async function verify() {
      return (await env.api.post('/api/user/custom-domain/verify', { key: pro.apiKey })).body.data as { customDomainStatus: string };
    }
  });

  /** Deactivates the service account's authorization for `domain` at the CA, as its expiry would. */
  async function lapseAuthorization(domain: string) {
    const { repositories, box } = env.container;
    const sealed = await repositories.customDomains.acmeAccountKey(pebble.directoryUrl, () => Promise.reject(new Error('no ACME account yet')));
    const client = new acme.Client({ directoryUrl: pebble.directoryUrl, accountKey: box.decrypt(sealed) });
    await client.createAccount({ onlyReturnExisting: true });
    const [authorization] = await client.getAuthorizations(await client.createOrder({ identifiers: [{ type: 'dns', value: domain }] }));
    expect(authorization!.status).to.equal('valid');
    await client.deactivateAuthorization(authorization!);
  }
});
