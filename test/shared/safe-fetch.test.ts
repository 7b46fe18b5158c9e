import { expect } from 'chai';
import dns from 'node:dns';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { syncBuiltinESMExports } from 'node:module';
import type { Readable } from 'node:stream';
import { text as readAll } from 'node:stream/consumers';
import { AppError } from '../../shared/errors.js';
import { isPublicAddress } from '../../shared/net/ip-policy.js';
import { safeFetch, type SafeFetchOptions } from '../../shared/net/safe-fetch.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function listen(handler: Handler): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function expectAppError(promise: Promise<unknown>, pattern: RegExp): Promise<AppError> {
  const error = await promise.then(
    (value) => {
      (value as { body?: Readable } | undefined)?.body?.destroy();
      expect.fail('expected an AppError');
    },
    (err: unknown) => err,
  );
  expect(error).to.be.instanceOf(AppError);
  expect((error as AppError).status).to.equal(400);
  expect((error as AppError).message).to.match(pattern);
  return error as AppError;
}

/** Replaces dns.lookup for the duration of `run`, also for modules that imported it by name. */
async function withFakeDns(answer: (hostname: string) => dns.LookupAddress[], run: () => Promise<unknown>) {
  const original = dns.lookup;
  const fake = (host: string, _: unknown, done: (err: null, all: dns.LookupAddress[]) => void) =>
    process.nextTick(done, null, answer(host));
  dns.lookup = fake as unknown as typeof dns.lookup;
  syncBuiltinESMExports();
  try {
    await run();
  } finally {
    dns.lookup = original;
    syncBuiltinESMExports();
  }
}

describe('isPublicAddress', () => {
  const publicAddresses = [
    '8.8.8.8', '1.1.1.1', '93.184.215.14', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1',
  ];
  const nonPublic: Record<string, string[]> = {
    loopback: ['127.0.0.1', '127.255.255.254', '::1'],
    unspecified: ['0.0.0.0', '0.1.2.3', '::'],
    private: ['10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1'],
    'link-local and cloud metadata': ['169.254.169.254', '169.254.0.1', 'fe80::1', 'febf::1', 'fe80::1%eth0'],
    CGNAT: ['100.64.0.1', '100.127.255.254'],
    multicast: ['224.0.0.1', '239.255.255.250', 'ff02::1'],
    broadcast: ['255.255.255.255'],
    'reserved, benchmarking, documentation': [
      '192.0.0.8', '192.0.2.1', '198.18.0.1', '198.19.255.1', '198.51.100.7', '203.0.113.9', '240.0.0.1',
      '2001:db8::1', '2001:2::1', '3fff::1',
    ],
    'IPv6 unique-local and unallocated': ['fc00::1', 'fd12:3456::1', 'fec0::1', '4000::1', '100::1'],
    'IPv4-mapped': ['::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:7f00:1'],
    'IPv4-compatible and SIIT': ['::127.0.0.1', '::10.0.0.1', '::8.8.8.8', '::ffff:0:8.8.8.8'],
    NAT64: ['64:ff9b::127.0.0.1', '64:ff9b::10.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b:1::808:808'],
    '6to4': ['2002:7f00:1::1', '2002:a00:1::1', '2002:c0a8:101::'],
    Teredo: ['2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    'not canonical text': ['0x7f.1', '127.1', '2130706433', '010.0.0.1', 'localhost', ''],
  };

  it('accepts globally routable unicast, including IPv4 wrapped in IPv6 that unwraps to it', () => {
    for (const ip of publicAddresses) expect(isPublicAddress(ip), ip).to.equal(true);
  });

  for (const [category, addresses] of Object.entries(nonPublic)) {
    it(`refuses ${category}`, () => {
      for (const ip of addresses) expect(isPublicAddress(ip), ip).to.equal(false);
    });
  }
});

describe('safeFetch', () => {
  let server: Server;
  let origin: string;
  let port: number;
  let other: Server;
  let otherOrigin: string;
  let seen: IncomingMessage[];
  let stalled: ServerResponse[];
  const options = (extra: Partial<SafeFetchOptions> = {}): SafeFetchOptions =>
    ({ timeoutMs: 5000, allowedOrigins: [origin, otherOrigin], ...extra });

  before(async () => {
    ({ server, origin } = await listen((req, res) => {
      seen.push(req);
      const url = new URL(req.url ?? '/', origin);
      const hops = Number(url.searchParams.get('left'));
      switch (url.pathname) {
        case '/file':
          res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '12', 'X-Multi': ['a', 'b'] });
          res.write('hello ');
          setTimeout(() => res.end('world!'), 20);
          return;
        case '/to':
          res.writeHead(302, { Location: url.searchParams.get('u') ?? '/' }).end();
          return;
        case '/chain':
          res.writeHead(hops > 0 ? 301 : 200, hops > 0 ? { Location: `chain?left=${hops - 1}` } : {});
          res.end(hops > 0 ? '' : 'end of chain');
          return;
        case '/trickle': {
          res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
          stalled.push(res);
          const tick = setInterval(() => res.write('x'), 100);
          res.on('close', () => clearInterval(tick));
          return;
        }
        case '/cut':
          res.writeHead(200, { 'Content-Length': '100' });
          res.write('partial', () => setTimeout(() => res.destroy(), 20));
          return;
        case '/hang-up':
          req.socket.destroy();
          return;
        case '/silent':
          stalled.push(res);
          return;
        default:
          res.writeHead(404).end('nope');
      }
    }));
    port = Number(new URL(origin).port);
    ({ server: other, origin: otherOrigin } = await listen((req, res) => {
      res.writeHead(200).end(JSON.stringify({ authorization: req.headers.authorization ?? null }));
    }));
  });
  beforeEach(() => {
    seen = [];
    stalled = [];
  });
  afterEach(() => stalled.forEach((res) => res.destroy()));
  after(async () => {
    server.closeAllConnections();
    other.closeAllConnections();
    await Promise.all([server, other].map((s) => new Promise((resolve) => s.close(resolve))));
  });

  describe('address checks', () => {
    it('refuses a loopback server unless its origin is allowed', async () => {
      await expectAppError(safeFetch(`${origin}/file`, { timeoutMs: 5000 }), /non-public address \(127\.0\.0\.1\)/);
      expect(seen).to.have.length(0);
    });

    it('streams the body of an allowed origin with status, lower-case headers and length', async () => {
      const response = await safeFetch(`${origin}/file#fragment`, options());
      expect(response.status).to.equal(200);
      expect(response.url).to.equal(`${origin}/file#fragment`);
      expect(response.contentLength).to.equal(12);
      expect(response.headers['content-type']).to.equal('text/plain');
      expect(response.headers['x-multi']).to.equal('a, b');
      expect(await readAll(response.body)).to.equal('hello world!');
    });

    for (const host of [
      '127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::127.0.0.1]', '[64:ff9b::7f00:1]',
      '2130706433', '0x7f000001', '0x7f.1', '0177.0.0.1', '127.1', '0.0.0.0', '0', 'localhost',
      '169.254.169.254', '[fe80::1]',
    ]) {
      it(`refuses the loopback-ish host ${host}`, async () => {
        await expectAppError(safeFetch(`http://${host}:${port}/file`, { timeoutMs: 5000 }), /non-public address/);
        expect(seen).to.have.length(0);
      });
    }

    it('refuses a host when any one of its addresses is not public', async () => {
      const answer = [{ address: '1.1.1.1', family: 4 }, { address: '10.0.0.1', family: 4 }];
      const fetching = () => safeFetch('http://mixed.example/', { timeoutMs: 5000 });
      await withFakeDns(() => answer, () => expectAppError(fetching(), /non-public address \(10\.0\.0\.1\)/));
    });

    it('connects only to the address it checked, even if DNS answers differently later (rebinding)', async () => {
      let lookups = 0;
      await withFakeDns(
        () => (lookups++ === 0 ? [{ address: '192.88.98.1', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]),
        // The checked address is public but unreachable here; a second lookup would reach our server.
        () => expectAppError(safeFetch(`http://rebind.example:${port}/file`, { timeoutMs: 500 }), /could not fetch|took longer/),
      );
      expect(lookups).to.equal(1);
      expect(seen).to.have.length(0);
    });

    it('turns a DNS failure into a 400', async () => {
      await expectAppError(safeFetch('http://does-not-exist.invalid/', { timeoutMs: 5000 }), /could not resolve/);
    });

    it('turns a refused connection into a 400', async () => {
      const closed = await listen(() => {});
      await new Promise((resolve) => closed.server.close(resolve));
      await expectAppError(
        safeFetch(`${closed.origin}/`, { timeoutMs: 5000, allowedOrigins: [closed.origin] }),
        /connection refused/,
      );
    });

    it('turns a connection reset before or during the body into a 400', async () => {
      await expectAppError(safeFetch(`${origin}/hang-up`, options()), /could not fetch .*(closed|reset)/);
      const response = await safeFetch(`${origin}/cut`, options());
      await expectAppError(readAll(response.body), /could not fetch .*(closed|reset)/);
    });
  });

  describe('redirects', () => {
    it('refuses a redirect to another loopback address or to the cloud metadata address', async () => {
      for (const target of [`http://127.0.0.2:${port}/file`, 'http://169.254.169.254/latest/meta-data/']) {
        seen = [];
        await expectAppError(safeFetch(`${origin}/to?u=${encodeURIComponent(target)}`, options()), /non-public/);
        expect(seen).to.have.length(1);
      }
    });

    it('refuses a redirect to a non-http scheme or to a URL with credentials', async () => {
      for (const target of ['file:///etc/passwd', `ftp://127.0.0.1:${port}/`, `http://u:p@127.0.0.1:${port}/file`]) {
        await expectAppError(safeFetch(`${origin}/to?u=${encodeURIComponent(target)}`, options()), /only http|credentials/);
      }
    });

    it('follows relative redirects up to five', async () => {
      const response = await safeFetch(`${origin}/chain?left=5`, options());
      expect(response.url).to.equal(`${origin}/chain?left=0`);
      expect(await readAll(response.body)).to.equal('end of chain');
      expect(seen).to.have.length(6);
    });

    it('refuses more than five redirects, or more than maxRedirects', async () => {
      await expectAppError(safeFetch(`${origin}/chain?left=6`, options()), /too many redirects/);
      await expectAppError(safeFetch(`${origin}/chain?left=2`, options({ maxRedirects: 1 })), /too many redirects/);
    });

    it('drops the caller\'s Authorization header when a redirect leaves the first origin', async () => {
      const response = await safeFetch(
        `${origin}/to?u=${encodeURIComponent(`${otherOrigin}/`)}`,
        options({ headers: { Authorization: 'Bearer secret' } }),
      );
      expect(JSON.parse(await readAll(response.body))).to.deep.equal({ authorization: null });
    });
  });

  describe('URL rules', () => {
    it('refuses non-http schemes and unparsable URLs', async () => {
      for (const url of ['ftp://example.com/a', 'file:///etc/passwd', 'data:text/plain,hi', 'gopher://example.com/', 'not a url']) {
        await expectAppError(safeFetch(url, options()), /only http and https|not a valid URL/);
      }
    });

    it('refuses URLs with credentials', async () => {
      await expectAppError(safeFetch(`http://user:pass@127.0.0.1:${port}/file`, options()), /credentials/);
      await expectAppError(safeFetch(`http://user@127.0.0.1:${port}/file`, options()), /credentials/);
      expect(seen).to.have.length(0);
    });
  });

  describe('answers and time limits', () => {
    it('turns a 404 into a 400 naming the status', async () => {
      await expectAppError(safeFetch(`${origin}/missing`, options()), /answered 404/);
    });

    it('fails the body stream with a 400 when the whole download outlasts timeoutMs', async () => {
      const started = Date.now();
      const response = await safeFetch(`${origin}/trickle`, options({ timeoutMs: 300 }));
      const error = await expectAppError(readAll(response.body), /took longer than 0\.3 seconds/);
      expect(error.code).to.equal('bad_request');
      expect(Date.now() - started).to.be.below(1000);
      // The response never ends on its own, so 'close' means the client dropped the connection.
      const trickling = stalled[0]!;
      await new Promise((resolve) => (trickling.closed ? resolve(null) : trickling.once('close', resolve)));
    });

    it('rejects with a 400 when headers never arrive in time', async () => {
      const started = Date.now();
      await expectAppError(safeFetch(`${origin}/silent`, options({ timeoutMs: 300 })), /took longer than 0\.3 seconds/);
      expect(Date.now() - started).to.be.below(1000);
    });

    it('passes the caller\'s abort through', async () => {
      const controller = new AbortController();
      const pending = safeFetch(`${origin}/silent`, options({ signal: controller.signal }));
      setTimeout(() => controller.abort(new Error('stopped by caller')), 50);
      const error = await pending.catch((err: unknown) => err);
      expect((error as Error).message).to.equal('stopped by caller');
    });
  });
});
