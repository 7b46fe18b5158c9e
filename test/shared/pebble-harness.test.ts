import { createPrivateKey, X509Certificate } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import { Agent } from 'node:https';
import * as acme from 'acme-client';
import { expect } from 'chai';
import { startPebble, pebbleInstalled, type Pebble } from '../helpers/pebble.js';
import { freePort } from '../helpers/ports.js';

type AcmeSettings = Record<string, number>;
const axiosDefaults = acme.axios.defaults as typeof acme.axios.defaults & { acmeSettings: AcmeSettings };

describe('Pebble test harness (ACME CA + challtestsrv DNS)', function () {
  let pebble: Pebble;
  let resolver: Resolver;
  let savedAgent: unknown;
  let savedSettings: AcmeSettings;

  before(async function () {
    if (!pebbleInstalled()) return this.skip();
    pebble = await startPebble({ httpPort: await freePort(), certificateValidityPeriod: 600 });
    resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([pebble.dnsServer]);
    // acme-client's axios instance is process-wide: trust our CA, fail instead of waiting out
    // retries (an untrusted CA or a dead server would otherwise look like a hang), restore after.
    savedAgent = axiosDefaults.httpsAgent;
    savedSettings = axiosDefaults.acmeSettings;
    axiosDefaults.httpsAgent = new Agent({ ca: pebble.caCert });
    axiosDefaults.acmeSettings = { ...savedSettings, retryMaxAttempts: 0 };
  });

  after(async () => {
    if (!pebble) return;
    axiosDefaults.httpsAgent = savedAgent;
    axiosDefaults.acmeSettings = savedSettings;
    await pebble.stop();
  });

  /** An ACME client with a new account key, polling order/challenge status every few ms. */
  async function newClient() {
    return new acme.Client({
      directoryUrl: pebble.directoryUrl,
      accountKey: await acme.crypto.createPrivateEcdsaKey(),
      backoffAttempts: 30,
      backoffMin: 20,
      backoffMax: 200,
    });
  }

  /** The PEM chain validates up to Pebble's current root and names `domain`. */
  async function expectValidChain(chainPem: string, domain: string) {
    const [leafPem, ...intermediatePems] = acme.crypto.splitPemChain(chainPem);
    const root = new X509Certificate(await pebble.rootCertificate());
    const chain = [leafPem!, ...intermediatePems].map((pem) => new X509Certificate(pem));
    for (let i = 0; i < chain.length; i++) {
      const issuer = chain[i + 1] ?? root;
      expect(chain[i]!.checkIssued(issuer), `certificate ${i} issued by the next one`).to.equal(true);
      expect(chain[i]!.verify(issuer.publicKey), `signature of certificate ${i}`).to.equal(true);
    }
    const leaf = chain[0]!;
    expect(leaf.subjectAltName).to.equal(`DNS:${domain}`);
    expect(leaf.checkHost(domain)).to.equal(domain);
    // certificateValidityPeriod: 600 reached Pebble's config.
    const lifetime = (Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / 1000;
    expect(lifetime).to.be.within(595, 600);
    return leaf;
  }

  it('issues a certificate by DNS-01 through a TXT record published with setTxt', async () => {
    const domain = 'shop.example.test';
    const client = await newClient();
    const [key, csr] = await acme.crypto.createCsr({ altNames: [domain] }, await acme.crypto.createPrivateEcdsaKey());
    const published: string[] = [];
    const cert = await client.auto({
      csr,
      termsOfServiceAgreed: true,
      challengePriority: ['dns-01'],
      // acme-client's own pre-check asks the system resolver, which cannot see challtestsrv.
      skipChallengeVerification: true,
      challengeCreateFn: async (authz, challenge, keyAuthorization) => {
        expect(challenge.type).to.equal('dns-01');
        const name = `_acme-challenge.${authz.identifier.value}`;
        await pebble.setTxt(name, keyAuthorization);
        published.push(name);
        expect(await resolver.resolveTxt(name)).to.deep.equal([[keyAuthorization]]);
      },
      challengeRemoveFn: async (authz) => pebble.clearTxt(`_acme-challenge.${authz.identifier.value}`),
    });
    expect(published).to.deep.equal([`_acme-challenge.${domain}`]);
    const leaf = await expectValidChain(cert, domain);
    expect(leaf.checkPrivateKey(createPrivateKey(key))).to.equal(true);
  });

  it('issues a certificate by HTTP-01 from a server on httpChallengePort, after addA', async () => {
    const domain = 'renew.example.test';
    const tokens = new Map<string, string>();
    const served: string[] = [];
    const server: Server = createServer((req, res) => {
      const token = /^\/\.well-known\/acme-challenge\/([\w-]+)$/.exec(req.url ?? '')?.[1];
      const answer = token && tokens.get(token);
      if (!answer) return res.writeHead(404).end();
      served.push(`${req.headers.host} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/plain' }).end(answer);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(pebble.httpChallengePort, '127.0.0.1', resolve);
    });
    try {
      await pebble.addA(domain, '127.0.0.1');
      expect(await resolver.resolve4(domain)).to.deep.equal(['127.0.0.1']);
      const client = await newClient();
      const [, csr] = await acme.crypto.createCsr({ altNames: [domain] }, await acme.crypto.createPrivateEcdsaKey());
      const cert = await client.auto({
        csr,
        termsOfServiceAgreed: true,
        challengePriority: ['http-01'],
        skipChallengeVerification: true,
        challengeCreateFn: async (_authz, challenge, keyAuthorization) => {
          expect(challenge.type).to.equal('http-01');
          tokens.set((challenge as { token: string }).token, keyAuthorization);
        },
        challengeRemoveFn: async (_authz, challenge) => {
          tokens.delete((challenge as { token: string }).token);
        },
      });
      await expectValidChain(cert, domain);
      // Pebble's VA really fetched the key authorization from us (no PEBBLE_VA_ALWAYS_VALID).
      expect(served).to.have.length.greaterThan(0);
      expect(served[0]).to.match(new RegExp(`^${domain.replace(/\./g, '\\.')}:${pebble.httpChallengePort} /\\.well-known/acme-challenge/`));
    } finally {
      await pebble.clearA(domain);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('refuses a DNS-01 challenge whose TXT record was never published', async () => {
    const client = await newClient();
    const [, csr] = await acme.crypto.createCsr({ altNames: ['missing.example.test'] }, await acme.crypto.createPrivateEcdsaKey());
    let error: unknown;
    try {
      await client.auto({
        csr,
        termsOfServiceAgreed: true,
        challengePriority: ['dns-01'],
        skipChallengeVerification: true,
        challengeCreateFn: async () => undefined,
        challengeRemoveFn: async () => undefined,
      });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.match(/No TXT records found for DNS challenge/);
  });

  it('serves TXT, CNAME, CAA and SERVFAIL to node:dns through dnsServer', async () => {
    await pebble.setTxt('_acme-challenge.dns.example.test', 'first');
    await pebble.setTxt('_acme-challenge.dns.example.test', 'second'); // appends
    expect(await resolver.resolveTxt('_acme-challenge.dns.example.test')).to.deep.equal([['first'], ['second']]);
    await pebble.clearTxt('_acme-challenge.dns.example.test');
    await expectCode(resolver.resolveTxt('_acme-challenge.dns.example.test'), 'ENODATA');

    await pebble.setCname('www.dns.example.test', 'edge.hosting.test');
    expect(await resolver.resolveCname('www.dns.example.test')).to.deep.equal(['edge.hosting.test']);
    // challtestsrv follows one CNAME level for other types (CNAME-delegated _acme-challenge works).
    await pebble.setTxt('edge.hosting.test', 'via-alias');
    expect(await resolver.resolveTxt('www.dns.example.test')).to.deep.equal([['via-alias']]);
    await pebble.clearTxt('edge.hosting.test');
    await pebble.clearCname('www.dns.example.test');
    await expectCode(resolver.resolveCname('www.dns.example.test'), 'ENODATA');

    await pebble.setCaa('dns.example.test', [
      { tag: 'issue', value: 'letsencrypt.org' },
      { tag: 'iodef', value: 'mailto:security@example.test' },
    ]);
    expect(await resolver.resolveCaa('dns.example.test')).to.deep.equal([
      { critical: 0, issue: 'letsencrypt.org' },
      { critical: 0, iodef: 'mailto:security@example.test' },
    ]);
    await pebble.clearCaa('dns.example.test');
    await expectCode(resolver.resolveCaa('dns.example.test'), 'ENODATA');

    // No A record unless added (the harness turns challtestsrv's default answer off).
    await expectCode(resolver.resolve4('dns.example.test'), 'ENODATA');
    await pebble.addA('dns.example.test', '192.0.2.10');
    await pebble.setServfail('dns.example.test');
    await expectCode(resolver.resolve4('dns.example.test'), 'ESERVFAIL');
    await expectCode(resolver.resolveCaa('dns.example.test'), 'ESERVFAIL');
    await pebble.clearServfail('dns.example.test');
    expect(await resolver.resolve4('dns.example.test')).to.deep.equal(['192.0.2.10']);
    await pebble.clearA('dns.example.test');
  });

  async function expectCode(promise: Promise<unknown>, code: string) {
    const error = await promise.then(
      () => undefined,
      (err: NodeJS.ErrnoException) => err,
    );
    expect(error?.code, `expected ${code}`).to.equal(code);
  }
});
