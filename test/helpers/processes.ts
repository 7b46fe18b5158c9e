import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { pngBytes } from './media.js';
import { ensureBuilt, launchCommand, spawnCommand } from './run-script.js';

/**
 * A Procfile process (with `args` after its command) as production runs it, from the compiled dist/;
 * resolves once it printed `ready`. Its output is kept: `printed(text)` waits for a line, `output()`
 * is all of it. `exited` resolves with the exit code (null when a signal ended it).
 */
export async function startProcfile(type: string, args: string, env: Record<string, string>, ready: string) {
  await ensureBuilt();
  return startCommand(`${await launchCommand(`Procfile ${type}`)}${args}`, env, ready);
}

/** A command line (a Procfile line, an npm script's command) run as startProcfile runs its process. */
export async function startCommand(command: string, env: Record<string, string>, ready: string) {
  const child = spawnCommand(command, { ...env, LOG_LEVEL: 'info' });
  let output = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  const onData = (d: Buffer) => {
    output += d.toString();
    for (const waiter of waiters.filter((w) => output.includes(w.text))) waiter.resolve();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  /** Resolves when the process has printed `text` (a log message); rejects if it exits first. */
  const printed = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (output.includes(text)) return resolve();
      waiters.push({ text, resolve });
      void exited.then(() => reject(new Error(`exited before printing "${text}":\n${output}`)));
    });
  /** Sends `signal` unless it has exited already; resolves once it has. */
  const kill = (signal: NodeJS.Signals = 'SIGKILL') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  try {
    await printed(ready);
  } catch (err) {
    await kill();
    throw err;
  }
  return { child, exited, printed, kill, output: () => output };
}

export type StartedProcess = Awaited<ReturnType<typeof startCommand>>;

/** A `web` process, once it listens (on PORT of `env`). */
export const startWeb = (env: Record<string, string>) => startProcfile('web', '', env, '"msg":"web listening"');

/** A `worker` process running `queues` (all of them when none are named), once its workers started. */
export const startWorker = (env: Record<string, string>, ...queues: string[]) =>
  startProcfile('worker', queues.map((q) => ` ${q}`).join(''), env, '"msg":"workers started"');

/**
 * An upload that the server is receiving (it answered `Expect: 100-continue`) and that waits for the
 * rest of its body: `finish` sends it, `response` is what the server answered, `closed` when it hung up.
 * Half of a PNG of `pngSize` bytes is sent; past ~8 KB that half reaches storage (its type is known).
 */
export async function heldUpload(port: number, apiKey: string, pngSize = 200) {
  const boundary = `b${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="held.png"\r\nContent-Type: image/png\r\n\r\n`),
    pngBytes(pngSize),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => undefined);
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  /** Resolves once what the server sent matches `pattern`; rejects if it hangs up before. */
  const answered = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(received)) return;
        socket.off('data', check);
        resolve();
      };
      socket.on('data', check);
      check();
      void closed.then(() => (pattern.test(received) ? resolve() : reject(new Error(`closed; received: ${received}`))));
    });
  const continued = answered(/^HTTP\/1\.1 100 Continue\r\n/);
  socket.write(
    `POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: ${apiKey}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n` +
      `Content-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  await continued;
  const half = Math.floor(body.length / 2);
  socket.write(body.subarray(0, half));
  return {
    closed,
    // write, not end: a client that half-closes has given up on its request, as far as Node's server is concerned.
    finish: () => socket.write(body.subarray(half)),
    response: async () => {
      await answered(/\r\n\r\nHTTP\/1\.1 \d{3} /);
      return Number(/\r\n\r\nHTTP\/1\.1 (\d{3}) /.exec(received)![1]);
    },
    destroy: () => socket.destroy(),
  };
}
