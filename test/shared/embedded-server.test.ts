import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openPglite, type Database, type DatabaseHandle, type Transaction } from '../../shared/db/client.js';
import { connectEmbeddedServer, serveEmbeddedDatabase } from '../../shared/db/embedded-server.js';

/** The rows of a raw query (the two drivers answer alike; the shared type does not say so). */
async function rowsOf<T>(db: Database | Transaction, query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

/**
 * npm start shares its PGlite, one session, with its web processes and the admin CLI over a socket:
 * each connection must get the session to itself for a statement's Parse/Bind/Execute and for a whole
 * transaction, against the other connections and the queries of the process that holds PGlite.
 */
describe('The embedded database over its socket, with several clients', function () {
  this.timeout(60_000);
  let dataDir: string;
  let embedded: DatabaseHandle;
  let stop: () => Promise<void>;
  const clients: DatabaseHandle[] = [];

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'hfs-embedded-'));
    embedded = await openPglite(path.join(dataDir, 'db'));
    await embedded.db.execute(sql`create table t (id serial primary key, who int not null)`);
    stop = await serveEmbeddedDatabase(embedded, dataDir);
    for (let i = 0; i < 3; i++) clients.push((await connectEmbeddedServer(dataDir))!);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await stop();
    await embedded.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps statements and transactions of concurrent connections and of the process itself apart', async () => {
    // Three pools of four through the socket and two loops in process, each writer on its own rows.
    const writers = [...clients.flatMap((client) => [client, client, client, client]), embedded, embedded];
    const problems: string[] = [];
    await Promise.all(
      writers.map(async ({ db }, who) => {
        let inserted = 0;
        for (let i = 0; i < 30; i++) {
          // Its own macrotask, as requests and jobs are, so the socket's connections get their turns.
          await new Promise((resolve) => setImmediate(resolve));
          await db.transaction(async (tx) => {
            await tx.execute(sql`insert into t (who) values (${who})`);
            const n = (await rowsOf<{ n: number }>(tx, sql`select count(*)::int as n from t where who = ${who}`))[0]!.n;
            if (n !== inserted + 1) problems.push(`writer ${who} saw ${n} rows, not ${inserted + 1}`);
          });
          inserted++;
          // Two statements of different shapes: one connection's Bind must never meet another's Parse.
          const row = (await rowsOf<{ w: string; v: number }>(db, sql`select ${`w${who}`}::text as w, ${i}::int + 1 as v`))[0]!;
          if (row.w !== `w${who}` || row.v !== i + 1) problems.push(`writer ${who} got ${JSON.stringify(row)}`);
        }
      }),
    );
    expect(problems).to.deep.equal([]);
    expect(await rowsOf(embedded.db, sql`select count(*)::int as n from t`)).to.deep.equal([{ n: writers.length * 30 }]);
  });

  it('rolls back what a client that went away left open, and lets the others go on', async () => {
    const client = new pg.Client({ host: path.join(dataDir, 'run'), port: 5432, user: 'postgres', database: 'postgres' });
    client.on('error', () => undefined);
    await client.connect();
    await client.query('begin');
    await client.query('insert into t (who) values (-1)');
    // Killed, not ended: the socket closes with the transaction open.
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    expect(await rowsOf(clients[0]!.db, sql`select count(*)::int as n from t where who = -1`)).to.deep.equal([{ n: 0 }]);
    expect(await rowsOf(embedded.db, sql`select count(*)::int as n from t where who = -1`)).to.deep.equal([{ n: 0 }]);
  });

  it('prepares named statements of several connections (one session: names are dropped)', async () => {
    const [a, b] = await Promise.all(
      clients.slice(0, 2).map((client) => client.db.select({ n: sql<number>`${1}::int` }).from(sql`(select 1) s`).prepare('same_name').execute()),
    );
    expect(a).to.deep.equal([{ n: 1 }]);
    expect(b).to.deep.equal([{ n: 1 }]);
  });
});
