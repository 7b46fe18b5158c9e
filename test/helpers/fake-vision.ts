import { createServer, type Server } from 'node:http';

/** 'hold': a slow service — the request waits, unanswered, until `release` answers it with the answer then set. */
export type Answer = 'allow' | 'soft_flag' | 'hard_block' | 'down' | 'refuse' | 'missing' | 'hold';

/**
 * A stand-in for the moderation service's HTTP answer only (we ship no explicit images to make
 * the real model say hard_block): it answers the verdict the test asks for, and records what it got.
 */
export async function startFakeVision(port: number) {
  const state = { answer: 'allow' as Answer, received: [] as Buffer[], held: [] as (() => void)[] };
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/info') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ max_file_size_mb: 1 }));
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.received.push(Buffer.concat(chunks));
      answer();
    });
    const answer = () => {
      if (state.answer === 'hold') return void state.held.push(answer);
      if (state.answer === 'down') return res.writeHead(503).end('unavailable');
      if (state.answer === 'missing') return res.writeHead(404).end('no such route');
      if (state.answer === 'refuse') return res.writeHead(400, { 'content-type': 'application/json' }).end('{"success":false,"error":"Unsupported media"}');
      const score = { allow: 5, soft_flag: 55, hard_block: 95 }[state.answer];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: true, verdict: state.answer, score, category: 'sfw_real', categories: {}, model: 'fake', elapsedMs: 1 }));
    };
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const release = () => state.held.splice(0).forEach((answer) => answer());
  return {
    state,
    release,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
