import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { SecretBox } from '../../shared/crypto.js';
import { openDatabase } from '../../shared/db/open-database.js';
import { onCleanup } from './lib/cleanup.js';
import { median, percentile } from './lib/load.js';
import { benchDatabase } from './lib/bench-database.js';
import { freePort, startService, startWebProcess, tempDir } from './lib/processes.js';
import { cpuMs, currentRss } from './lib/proc-stats.js';
import type { BenchRow } from './report.js';

const run$ = promisify(execFile);

// Scale knobs for quick runs; the issue's figure is 1,000 active domains. The rounds span more than
// a minute, so each name's cached certificate is read again (DomainDirectory's TTL) while measured.
const DOMAINS = Number(process.env.BENCH_DOMAINS ?? 1000);
const ROUNDS = Number(process.env.BENCH_TLS_ROUNDS ?? 10);
const ROUND_SECONDS = Number(process.env.BENCH_TLS_ROUND_SECONDS ?? 4);
// Handshakes in flight: enough to keep the server busy, few enough that the client keeps up.
const IN_FLIGHT = 8;

const nameOf = (n: number) => `d${n}.bench.test`;

// OpenSSL's request config: a CA, and leaf certificates such as an ACME CA issues (P-256, serverAuth).
const OPENSSL_CONFIG = `[req]
distinguished_name = dn
[dn]
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign
subjectKeyIdentifier = hash
[leaf]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
`;

interface Issued {
  domain: string;
  /** leaf then CA, as ACME's full chain */
  certificatePem: string;
  keyPem: string;
}

/** One CA and a P-256 certificate for each name it signs, by the openssl command (a few in parallel). */
async function issueCertificates(names: string[]): Promise<{ caPem: string; issued: Issued[] }> {
  const { dir } = await tempDir('hfs-bench-certs-');
  const config = path.join(dir, 'openssl.cnf');
  const [caKey, caCert] = [path.join(dir, 'ca.key'), path.join(dir, 'ca.pem')];
  await writeFile(config, OPENSSL_CONFIG);
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '7', '-config', config];
  await run$('openssl', ['req', '-x509', ...newKey, '-extensions', 'ca', '-subj', '/CN=hfs bench CA', '-keyout', caKey, '-out', caCert]);
  const caPem = await readFile(caCert, 'utf8');
  const issued: Issued[] = new Array(names.length);
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const i = next++;
      const domain = names[i]!;
      const args = ['req', '-x509', ...newKey, '-extensions', 'leaf', '-CA', caCert, '-CAkey', caKey, '-subj', `/CN=${domain}`, '-addext', `subjectAltName=DNS:${domain}`];
      const { stdout } = await run$('openssl', [...args, '-keyout', '-', '-out', '-']);
      const keyPem = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----\n/.exec(stdout)?.[0];
      const leafPem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/.exec(stdout)?.[0];
      if (!keyPem || !leafPem) throw new Error(`openssl made no certificate for ${domain}: ${stdout.slice(0, 200)}`);
      issued[i] = { domain, certificatePem: leafPem + caPem, keyPem };
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return { caPem, issued };
}

/** Accounts with an active custom domain and its certificate, as the ACME flow leaves them, in one statement. */
async function seedDomains(databaseUrl: string, dataDir: string, box: SecretBox, issued: Issued[], migrate = false) {
  const database = await openDatabase({ databaseUrl, dataDir });
  try {
    if (migrate) await database.migrate();
    const rows = issued.map(({ domain, certificatePem, keyPem }) => ({ domain, cert: certificatePem, key: box.encrypt(keyPem) }));
    await database.db.execute(sql`
      with r as (select * from json_to_recordset(${JSON.stringify(rows)}::json) as r(domain text, cert text, key text)),
      a as (
        insert into accounts (username, plan, api_key_hash, api_key_sealed, custom_domain, url_format)
        select replace(r.domain, '.', '-'), 'pro', md5(r.domain), 'unused', r.domain, 'custom' from r
        returning id, custom_domain)
      insert into custom_domains (account_id, domain, status, txt_record_name, txt_record_value, provider_status, ssl_status,
        certificate_pem, private_key_sealed, certificate_expires_at, verified_at)
      select a.id, r.domain, 'active', '_hfs.' || r.domain, 'bench', 'active', 'active', r.cert, r.key, now() + interval '7 days', now()
      from r join a on a.custom_domain = r.domain`);
  } finally {
    await database.close();
  }
}

/** One full TLS handshake (no session resumed) naming `servername`, verified against `ca`; answers its milliseconds. */
function handshake(port: number, servername: string, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = tlsConnect({ host: '127.0.0.1', port, servername, ca }, () => {
      const ms = performance.now() - started;
      socket.destroy();
      resolve(ms);
    });
    socket.once('error', reject);
  });
}

/** Handshakes for `seconds` with IN_FLIGHT at a time, the names taken in turn: per second, and each one's milliseconds. */
async function handshakeRound(port: number, names: string[], ca: string, seconds: number) {
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < until) latencies.push(await handshake(port, names[next++ % names.length]!, ca));
    }),
  );
  return { perSecond: latencies.length / ((performance.now() - started) / 1000), latencies };
}

/**
 * TLS handshakes that choose a certificate by SNI, on a `web` process serving DOMAINS active custom
 * domains (names taken in turn) and on one whose database holds a single domain: the same code,
 * alternating rounds in the same run, so the machine's noise falls on both alike.
 */
export async function run(): Promise<{ title: string; rows: BenchRow[] }> {
  const service = await startService();
  try {
    if (!service.env.SECRET_KEY) throw new Error('the domains bench needs PostgreSQL (BENCH_DATABASE_URL, or a local server): a web process of its own cannot share the embedded database');
    const box = new SecretBox(service.env.SECRET_KEY);
    const names = Array.from({ length: DOMAINS }, (_, i) => nameOf(i));
    const issuing = performance.now();
    const { caPem, issued } = await issueCertificates(names);
    const issueSeconds = (performance.now() - issuing) / 1000;
    await seedDomains(service.env.DATABASE_URL!, service.env.DATA_DIR!, box, issued);

    // The single-domain server: the same service code on a database of its own with one domain row.
    const single: Record<string, string> = {};
    const dropSingle = onCleanup(await benchDatabase(single));
    await seedDomains(single.DATABASE_URL!, service.env.DATA_DIR!, box, issued.slice(0, 1), true);

    const [manyPort, onePort] = [await freePort(), await freePort()];
    const many = await startWebProcess(service, { HTTPS_PORT: String(manyPort) });
    const one = await startWebProcess(service, { HTTPS_PORT: String(onePort), DATABASE_URL: single.DATABASE_URL! });
    try {
      // First touch of each name: a database read and a new TLS context per name.
      const coldLatencies: number[] = [];
      const coldStarted = performance.now();
      for (const name of names) coldLatencies.push(await handshake(manyPort, name, caPem));
      const coldSeconds = (performance.now() - coldStarted) / 1000;
      await handshakeRound(onePort, names.slice(0, 1), caPem, 1);

      // Rounds alternate, and which goes first too, so neither always follows the other's heat. The
      // figure held to the target is the server's CPU per handshake: on shared cores the wall clock
      // swings with the neighbours' load, the CPU a process spends on its own work much less.
      const sides = { one: { port: onePort, pid: one.pid, names: names.slice(0, 1) }, many: { port: manyPort, pid: many.pid, names } };
      const tally = () => ({ handshakes: 0, cpuMs: 0, perSecond: [] as number[], latencies: [] as number[] });
      const totals = { one: tally(), many: tally() };
      for (let r = 0; r < ROUNDS; r++) {
        for (const which of r % 2 === 0 ? (['one', 'many'] as const) : (['many', 'one'] as const)) {
          const side = sides[which];
          const cpuBefore = await cpuMs(side.pid);
          const round = await handshakeRound(side.port, side.names, caPem, ROUND_SECONDS);
          totals[which].cpuMs += (await cpuMs(side.pid)) - cpuBefore;
          totals[which].handshakes += round.latencies.length;
          totals[which].perSecond.push(round.perSecond);
          totals[which].latencies.push(...round.latencies);
        }
      }
      const perCpuSecond = (which: 'one' | 'many') => totals[which].handshakes / (totals[which].cpuMs / 1000);
      const [oneRss, manyRss] = [await currentRss(one.pid), await currentRss(many.pid)];
      return {
        title: `Custom domains over TLS (web processes on ${service.database}; ${IN_FLIGHT} handshakes in flight, ${ROUNDS} rounds of ${ROUND_SECONDS} s each)`,
        rows: [
          { name: `${DOMAINS} certificates issued (openssl, one CA): seconds`, value: issueSeconds, unit: 's' },
          { name: `first handshake of each of ${DOMAINS} names, one at a time: per second`, value: DOMAINS / coldSeconds, unit: '/s' },
          { name: `first handshake of each of ${DOMAINS} names: p95`, value: percentile(coldLatencies, 95), unit: 'ms' },
          { name: 'handshakes per CPU-second of the web process, 1 domain', value: perCpuSecond('one'), unit: '/s' },
          { name: `handshakes per CPU-second of the web process, ${DOMAINS} domains in turn`, value: perCpuSecond('many'), unit: '/s' },
          { name: `1 domain / ${DOMAINS} domains, handshakes per CPU-second`, value: perCpuSecond('one') / perCpuSecond('many'), unit: 'x', target: ['<=', 1.2] },
          { name: 'handshakes per second, 1 domain (median round)', value: median(totals.one.perSecond), unit: '/s' },
          { name: `handshakes per second, ${DOMAINS} domains (median round)`, value: median(totals.many.perSecond), unit: '/s' },
          { name: `web RSS holding ${DOMAINS} domains' TLS contexts, more than with 1`, value: (manyRss - oneRss) / 2 ** 20, unit: 'MiB' },
          { name: 'handshake p95, 1 domain', value: percentile(totals.one.latencies, 95), unit: 'ms' },
          { name: `handshake p95, ${DOMAINS} domains`, value: percentile(totals.many.latencies, 95), unit: 'ms' },
        ],
      };
    } finally {
      await one.stop();
      await many.stop();
      await dropSingle();
    }
  } finally {
    await service.stop();
  }
}
