import { createServer, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

// Requests that come before a startup message, told apart by the code after their length.
const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const SYNC_TYPE = 0x53; // 'S'
const QUERY_TYPE = 0x51; // 'Q'
const TERMINATE_TYPE = 0x58; // 'X'
const SYNC = Buffer.from([SYNC_TYPE, 0, 0, 0, 4]);
const ROLLBACK = Buffer.concat([Buffer.from([QUERY_TYPE, 0, 0, 0, 13]), Buffer.from('ROLLBACK\0')]);

/**
 * Serves one PGlite over a Unix socket to PostgreSQL clients. PGlite is a single session, so each
 * connection gets it to itself from its first message until a Sync or simple query leaves it outside
 * a transaction: an extended-query batch or a transaction of one connection never meets another's
 * statements, nor those this process runs on PGlite itself (the turn is PGlite's transaction lock).
 */
export async function servePgliteSocket(db: PGlite, socketPath: string): Promise<() => Promise<void>> {
  await db.waitReady;
  const connections = new Set<Promise<void>>();
  const server = createServer((socket) => {
    const ended = new WireConnection(db, socket).ended;
    connections.add(ended);
    void ended.then(() => connections.delete(ended));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    sockets.forEach((socket) => socket.destroy());
    await Promise.all([closed, ...connections]);
  };
}

class WireConnection {
  /** Resolves once the socket closed and what it left open on the session was ended. */
  readonly ended: Promise<void>;
  private pending: Buffer = Buffer.alloc(0);
  private started = false;
  private closed = false;
  // Set while this connection has the session: lets the next one (or PGlite's own queries) have it.
  private release: (() => void) | undefined;
  private work = Promise.resolve();

  constructor(
    private readonly db: PGlite,
    private readonly socket: Socket,
  ) {
    socket.on('data', (data: Buffer) => this.received(data));
    socket.on('error', () => socket.destroy());
    this.ended = new Promise((resolve) =>
      socket.once('close', () => {
        this.closed = true;
        // A failure here means PGlite is closing: there is nothing left to end.
        resolve(this.work.then(() => this.endTurn()).catch(() => undefined));
      }),
    );
  }

  private received(data: Buffer) {
    this.pending = this.pending.length ? Buffer.concat([this.pending, data]) : data;
    for (;;) {
      const untyped = !this.started;
      const message = this.nextMessage();
      if (!message) return;
      this.work = this.work.then(() => this.handle(message, untyped)).catch(() => this.abort());
    }
  }

  /** The next whole message, or undefined until the rest of it arrives. */
  private nextMessage(): Buffer | undefined {
    // Until the startup message, messages have no type byte: their length comes first.
    const untyped = !this.started;
    const header = untyped ? 8 : 5;
    if (this.pending.length < header) return undefined;
    const length = untyped ? this.pending.readInt32BE(0) : 1 + this.pending.readInt32BE(1);
    if (length < header) return void this.abort();
    if (this.pending.length < length) return undefined;
    const message = this.pending.subarray(0, length);
    this.pending = this.pending.subarray(length);
    if (untyped) this.started = ![SSL_REQUEST, GSS_REQUEST, CANCEL_REQUEST].includes(message.readInt32BE(4));
    return message;
  }

  private abort() {
    this.closed = true;
    this.socket.destroy();
  }

  private async handle(message: Buffer, untyped: boolean) {
    if (this.closed) return;
    if (untyped) {
      const code = message.readInt32BE(4);
      // No TLS, no GSSAPI: the client goes on in plain text on the same connection.
      if (code === SSL_REQUEST || code === GSS_REQUEST) return void this.socket.write('N');
      if (code === CANCEL_REQUEST) return void this.socket.end();
    } else if (message[0] === TERMINATE_TYPE) {
      return void this.socket.end();
    }
    await this.takeTurn();
    if (this.closed) return;
    const write = (data: Uint8Array) => {
      // A copy: PGlite hands out a view of its memory, which the next statement overwrites.
      if (this.socket.writable) this.socket.write(Buffer.from(data));
    };
    await this.db.runExclusive(() => this.db.execProtocolRawStream(message, { onRawData: write }));
    // After the startup, a Sync or a simple query the session is idle again, unless a transaction is open.
    const endsBatch = untyped || message[0] === SYNC_TYPE || message[0] === QUERY_TYPE;
    if (endsBatch && !this.db.isInTransaction()) this.giveTurn();
  }

  private takeTurn(): Promise<void> {
    if (this.release) return Promise.resolve();
    return new Promise((taken) => {
      void this.db._runExclusiveTransaction(
        () =>
          new Promise<void>((release) => {
            this.release = release;
            taken();
          }),
      );
    });
  }

  private giveTurn() {
    this.release?.();
    this.release = undefined;
  }

  /** A client gone in the middle of a batch or a transaction: both are ended so the next turn starts clean. */
  private async endTurn() {
    if (!this.release) return;
    try {
      await this.db.runExclusive(async () => {
        await this.db.execProtocolRaw(SYNC);
        if (this.db.isInTransaction()) await this.db.execProtocolRaw(ROLLBACK);
      });
    } finally {
      this.giveTurn();
    }
  }
}
