import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

/**
 * A real ACME CA for tests: Pebble (Debian `pebble`) with pebble-challtestsrv as its DNS server,
 * every listener on 127.0.0.1 and a free port, certificates made with openssl in a temp dir.
 *
 * DNS: challtestsrv answers A/AAAA/TXT/CNAME/CAA from what the test sets through the management
 * API. Unlike challtestsrv's own defaults, a name has NO A/AAAA answer until `addA` (unless
 * `defaultIPv4` is given): a DNS check must not pass by accident, and Pebble's VA never tries ::1.
 * A name without records answers NOERROR with no data (`ENODATA` in node:dns), not NXDOMAIN.
 * A CNAME is followed one level for the other types (TXT, A, CAA) by challtestsrv itself; a type
 * the alias target lacks then answers the CNAME alone (node:dns gives `[]`, not ENODATA). Types
 * other than A/AAAA/TXT/CNAME/CAA (NS, MX, SOA…) answer NOTIMP. Names may be given with or
 * without the trailing dot.
 *
 * acme-client against it: trust `caCert` (its axios instance: `acme.axios.defaults.httpsAgent =
 * new https.Agent({ ca })`; NODE_EXTRA_CA_CERTS only works when set before node starts), pass
 * `skipChallengeVerification: true` to `auto()` (its own pre-check uses the system resolver and
 * port 80), and use small `backoffMin`/`backoffMax` so it polls order status quickly.
 */
export interface Pebble {
  /** The ACME directory, `https://127.0.0.1:<port>/dir`. */
  directoryUrl: string;
  /** PEM file of the CA that signed Pebble's own HTTPS certificate (not the ACME issuing root). */
  caCertPath: string;
  /** The same CA, PEM text: the `ca` of an https agent talking to Pebble. */
  caCert: string;
  /** `127.0.0.1:<port>` of challtestsrv's DNS (UDP and TCP), for `Resolver#setServers`. */
  dnsServer: string;
  /** Where Pebble's VA connects for HTTP-01 (on the address the name's A record gives). */
  httpChallengePort: number;
  /** Pebble's management interface, `https://127.0.0.1:<port>` (roots, intermediates). */
  managementUrl: string;
  /** PEM of Pebble's issuing root (`/roots/0`); a new one on every start. */
  rootCertificate(): Promise<string>;
  /** Adds a TXT value for `name` (challtestsrv appends: earlier values stay until clearTxt). */
  setTxt(name: string, value: string): Promise<void>;
  clearTxt(name: string): Promise<void>;
  /** `name` becomes an alias of `target` (one level, followed for TXT/A/AAAA/CAA queries too). */
  setCname(name: string, target: string): Promise<void>;
  clearCname(name: string): Promise<void>;
  /** Adds an A record (appends to the name's earlier addresses). */
  addA(name: string, ip: string): Promise<void>;
  clearA(name: string): Promise<void>;
  /**
   * Adds CAA records for `name` (appends). challtestsrv always answers flags 0: a record with
   * other flags is refused here rather than silently changed.
   */
  setCaa(name: string, records: { tag: string; value: string; flags?: number }[]): Promise<void>;
  clearCaa(name: string): Promise<void>;
  /** Every query for exactly `name` (any type; not its subdomains) answers SERVFAIL, overriding its records. */
  setServfail(name: string): Promise<void>;
  clearServfail(name: string): Promise<void>;
  /** What both processes printed so far (for failure messages). */
  output(): string;
  /** Kills both processes and removes the temp dir; safe to call twice. */
  stop(): Promise<void>;
}

export interface PebbleOptions {
  /** The port Pebble's VA uses for HTTP-01 (your server listens there); a free one by default. */
  httpPort?: number;
  /** Lifetime of issued certificates in seconds (Pebble's `certificateValidityPeriod`). */
  certificateValidityPeriod?: number;
  /** An A answer for every name without its own A record (none by default). */
  defaultIPv4?: string;
  /**
   * How often (%) a new order reuses a valid authorization of the same account and name, as a
   * production CA may. 0 by default, though this Pebble still reuses one now and then at 0.
   */
  authzReusePercent?: number;
}

const run = promisify(execFile);
const START_TIMEOUT_MS = 20_000;

/** Whether the Debian `pebble` package's two commands are on this machine. */
export function pebbleInstalled(): boolean {
  return ['pebble', 'pebble-challtestsrv'].every((command) =>
    (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
      try {
        accessSync(path.join(dir, command), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    }),
  );
}

/** A spawned engine whose output is kept, with the error to give when it has exited. */
class Engine {
  readonly child: ChildProcess;
  private log = '';
  private spawnError: Error | undefined;
  readonly exited: Promise<void>;

  constructor(
    readonly name: string,
    command: string,
    args: string[],
    env: NodeJS.ProcessEnv,
  ) {
    this.child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => {
      this.log += chunk.toString();
      if (this.log.length > 64_000) this.log = this.log.slice(-48_000);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.child.on('error', (err) => (this.spawnError = err));
    this.exited = new Promise((resolve) => this.child.once('close', () => resolve()));
  }

  get running() {
    return this.child.exitCode === null && this.child.signalCode === null && !this.spawnError;
  }

  output() {
    return this.log;
  }

  /** Why it is not running, with its output; undefined while it runs. */
  failure(): Error | undefined {
    if (this.spawnError) {
      const hint = (this.spawnError as NodeJS.ErrnoException).code === 'ENOENT' ? ' (is the Debian `pebble` package installed?)' : '';
      return new Error(`${this.name} could not start: ${this.spawnError.message}${hint}`);
    }
    if (this.running) return undefined;
    const how = this.child.signalCode ? `signal ${this.child.signalCode}` : `code ${this.child.exitCode}`;
    return new Error(`${this.name} exited early (${how}):\n${this.log.trim() || '(no output)'}`);
  }

  /** SIGTERM, then SIGKILL if it lingers; resolves once it is gone. */
  async stop() {
    if (this.child.pid === undefined || this.spawnError) return;
    if (this.running) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.running && this.child.kill('SIGKILL'), 3000);
    await this.exited;
    clearTimeout(timer);
  }
}

interface Answer {
  status: number;
  body: string;
}

/** One HTTP(S) request without pooled sockets; `ca` for https. */
function send(url: string, options: { method?: string; body?: string; ca?: string; timeoutMs?: number } = {}): Promise<Answer> {
  const target = new URL(url);
  const doRequest = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = doRequest(
      target,
      {
        method: options.method ?? 'GET',
        agent: false,
        ca: options.ca,
        timeout: options.timeoutMs ?? 5000,
        headers: options.body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(options.body) },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout: ${options.method ?? 'GET'} ${url}`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Polls `check` (true = ready) until it holds; fails at once when an engine has exited. */
async function waitUntil(what: string, engines: Engine[], check: () => Promise<boolean>) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    for (const engine of engines) {
      const failure = engine.failure();
      if (failure) throw failure;
    }
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) {
      const logs = engines.map((e) => `--- ${e.name}:\n${e.output().trim()}`).join('\n');
      throw new Error(`${what} not ready after ${START_TIMEOUT_MS} ms\n${logs}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A CA and a certificate for localhost/127.0.0.1 signed by it (Pebble's HTTPS identity). */
async function makeCertificates(dir: string) {
  const ca = { key: path.join(dir, 'ca.key'), cert: path.join(dir, 'ca.pem') };
  const server = { key: path.join(dir, 'localhost.key'), csr: path.join(dir, 'localhost.csr'), cert: path.join(dir, 'localhost.pem') };
  const ext = path.join(dir, 'localhost.ext');
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const id = randomBytes(4).toString('hex');
  await Promise.all([
    run('openssl', ['req', '-x509', ...ec, '-keyout', ca.key, '-out', ca.cert, '-days', '7', '-subj', `/CN=Pebble harness CA ${id}`,
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']),
    run('openssl', ['req', '-new', ...ec, '-keyout', server.key, '-out', server.csr, '-subj', '/CN=localhost']),
    writeFile(ext, [
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth',
      '',
    ].join('\n')),
  ]);
  await run('openssl', ['x509', '-req', '-in', server.csr, '-CA', ca.cert, '-CAkey', ca.key, '-set_serial', `0x${randomBytes(8).toString('hex')}`,
    '-days', '7', '-extfile', ext, '-out', server.cert]);
  return { caCertPath: ca.cert, certificate: server.cert, privateKey: server.key };
}

/** Starts challtestsrv and Pebble (DNS through challtestsrv); resolves once both answer. */
export async function startPebble(options: PebbleOptions = {}): Promise<Pebble> {
  const dir = await mkdtemp(path.join(tmpdir(), 'hfs-pebble-'));
  const engines: Engine[] = [];
  const killOnExit = () => engines.forEach((e) => e.running && e.child.kill('SIGKILL'));
  process.once('exit', killOnExit);
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await Promise.all(engines.map((e) => e.stop()));
      process.off('exit', killOnExit);
      await rm(dir, { recursive: true, force: true });
    })());

  try {
    const [certs, listenPort, managementPort, dnsPort, challMgmtPort, tlsPort, httpPort] = await Promise.all([
      makeCertificates(dir),
      freePort(),
      freePort(),
      freePort(),
      freePort(),
      freePort(),
      options.httpPort ?? freePort(),
    ]);
    const caCert = await readFile(certs.caCertPath, 'utf8');
    const dnsServer = `127.0.0.1:${dnsPort}`;
    const challMgmt = `http://127.0.0.1:${challMgmtPort}`;

    // challtestsrv: DNS and management only, both on loopback; its own challenge responders off
    // (-http01/-https01/-tlsalpn01 ""), so nothing of it competes with the caller's httpPort.
    const chall = new Engine('pebble-challtestsrv', 'pebble-challtestsrv', [
      '-management', `127.0.0.1:${challMgmtPort}`,
      '-dns01', dnsServer,
      '-http01', '',
      '-https01', '',
      '-tlsalpn01', '',
      '-defaultIPv4', options.defaultIPv4 ?? '',
      '-defaultIPv6', '',
    ], { PATH: process.env.PATH });
    engines.push(chall);

    const config = {
      pebble: {
        listenAddress: `127.0.0.1:${listenPort}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: certs.certificate,
        privateKey: certs.privateKey,
        httpPort,
        // Nothing listens there: TLS-ALPN-01 simply fails instead of reaching someone's :5001.
        tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
        ...(options.certificateValidityPeriod === undefined ? {} : { certificateValidityPeriod: options.certificateValidityPeriod }),
      },
    };
    const configPath = path.join(dir, 'pebble-config.json');
    await writeFile(configPath, JSON.stringify(config, null, 2));

    // A clean environment: nothing like PEBBLE_VA_ALWAYS_VALID leaks in from the caller's.
    const pebble = new Engine('pebble', 'pebble', ['-config', configPath, '-dnsserver', dnsServer], {
      PATH: process.env.PATH,
      PEBBLE_VA_NOSLEEP: '1',
      PEBBLE_WFE_NONCEREJECT: '0',
      PEBBLE_AUTHZREUSE: String(options.authzReusePercent ?? 0),
    });
    engines.push(pebble);

    const resolver = new Resolver({ timeout: 250, tries: 1 });
    resolver.setServers([dnsServer]);
    const directoryUrl = `https://127.0.0.1:${listenPort}/dir`;
    const managementUrl = `https://127.0.0.1:${managementPort}`;
    await Promise.all([
      waitUntil('challtestsrv management', engines, async () => (await send(`${challMgmt}/`)).status > 0),
      // Any DNS answer (ENODATA for an unknown name) proves the server is up; refusals do not.
      waitUntil('challtestsrv DNS', engines, () =>
        resolver.resolveTxt('ready.pebble-harness.test').then(
          () => true,
          (err: NodeJS.ErrnoException) => err.code === 'ENODATA' || err.code === 'ENOTFOUND',
        ),
      ),
      waitUntil('pebble ACME directory', engines, async () => (await send(directoryUrl, { ca: caCert })).status === 200),
      waitUntil('pebble management', engines, async () => (await send(`${managementUrl}/roots/0`, { ca: caCert })).status === 200),
    ]);

    const manage = async (endpoint: string, fields: { host: string } & Record<string, unknown>) => {
      // This challtestsrv keys TXT records by the exact host string while queries carry the
      // trailing dot: without it a TXT record is never answered (the other types normalise).
      const body = { ...fields, host: fields.host.endsWith('.') ? fields.host : `${fields.host}.` };
      const answer = await send(`${challMgmt}${endpoint}`, { method: 'POST', body: JSON.stringify(body) });
      if (answer.status !== 200) {
        throw new Error(`challtestsrv ${endpoint} ${JSON.stringify(body)} answered ${answer.status}: ${answer.body.trim()}`);
      }
    };

    return {
      directoryUrl,
      caCertPath: certs.caCertPath,
      caCert,
      dnsServer,
      httpChallengePort: httpPort,
      managementUrl,
      async rootCertificate() {
        const answer = await send(`${managementUrl}/roots/0`, { ca: caCert });
        if (answer.status !== 200) throw new Error(`pebble /roots/0 answered ${answer.status}: ${answer.body}`);
        return answer.body;
      },
      setTxt: (name, value) => manage('/set-txt', { host: name, value }),
      clearTxt: (name) => manage('/clear-txt', { host: name }),
      setCname: (name, target) => manage('/set-cname', { host: name, target }),
      clearCname: (name) => manage('/clear-cname', { host: name }),
      addA: (name, ip) => manage('/add-a', { host: name, addresses: [ip] }),
      clearA: (name) => manage('/clear-a', { host: name }),
      async setCaa(name, records) {
        const flagged = records.find((r) => (r.flags ?? 0) !== 0);
        if (flagged) throw new Error(`challtestsrv answers CAA with flags 0 only (got ${flagged.flags} for ${flagged.tag})`);
        await manage('/add-caa', { host: name, policies: records.map(({ tag, value }) => ({ tag, value })) });
      },
      clearCaa: (name) => manage('/clear-caa', { host: name }),
      setServfail: (name) => manage('/set-servfail', { host: name }),
      clearServfail: (name) => manage('/clear-servfail', { host: name }),
      output: () => engines.map((e) => `--- ${e.name}:\n${e.output().trim()}`).join('\n'),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
