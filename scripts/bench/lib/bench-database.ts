import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A fresh database on the local PostgreSQL (BENCH_DATABASE_URL) named in `env`; answers its drop. */
export async function benchDatabase(env: Record<string, string>): Promise<() => Promise<void>> {
  const admin = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `hfs_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  try {
    await client.connect();
    await client.query(`create database "${name}"`);
  } catch (err) {
    await client.end().catch(() => undefined);
    if (process.env.BENCH_DATABASE_URL) throw err;
    return async () => undefined; // no PostgreSQL here: the embedded PGlite it is
  }
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  env.DATABASE_URL = url.toString();
  env.SECRET_KEY = randomBytes(32).toString('hex');
  return async () => {
    const drop = new pg.Client({ connectionString: admin });
    await drop.connect();
    await drop.query(`drop database if exists "${name}" with (force)`);
    await drop.end();
  };
}
