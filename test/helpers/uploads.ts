import { expect } from 'chai';
import { readdir } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { eq, isNull } from 'drizzle-orm';
import { accounts, files } from '../../shared/db/schema.js';
import type { ApiResponse } from './api-client.js';
import type { TestEnv } from './test-env.js';

export interface UploadOptions {
  key?: string;
  bytes?: Buffer;
  name?: string;
  field?: string;
  fields?: Record<string, string>;
  /** extra file parts [field, bytes, name] */
  extraFiles?: [string, Buffer, string][];
  json?: boolean;
  headers?: Record<string, string>;
}

/** POST /api/upload as a client would: multipart with one file part (or what the test asks for). */
export async function upload(env: TestEnv, options: UploadOptions = {}): Promise<ApiResponse> {
  const form = new FormData();
  for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
  if (options.bytes !== undefined) {
    form.append(options.field ?? 'file', new Blob([new Uint8Array(options.bytes)]), options.name ?? 'picture.png');
  }
  for (const [field, bytes, name] of options.extraFiles ?? []) form.append(field, new Blob([new Uint8Array(bytes)]), name);
  return env.api.post(`/api/upload${options.json ? '?format=json' : ''}`, {
    ...(options.key !== undefined ? { key: options.key } : {}),
    body: form,
    ...(options.headers ? { headers: options.headers } : {}),
  });
}

/** Every object file under the local driver's root. */
export async function storedObjects(env: TestEnv): Promise<string[]> {
  const root = env.container.config.storage.localRoot;
  try {
    return (await readdir(path.join(root, 'objects'))).map((name) => `objects/${name}`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return [];
  }
}

export async function fileRowsOf(env: TestEnv, accountId: string | null) {
  return env.container.db
    .select()
    .from(files)
    .where(accountId ? eq(files.accountId, accountId) : isNull(files.accountId));
}

export async function storageUsedBy(env: TestEnv, accountId: string): Promise<number> {
  const [row] = await env.container.db.select({ used: accounts.storageUsed }).from(accounts).where(eq(accounts.id, accountId));
  return row!.used;
}

/**
 * A GET with an explicit Host header (fetch ignores one), for host-routed URLs; `connectPort`
 * sends it to another server on loopback with the same Host.
 */
/**
 * For tests of refused uploads: `snapshot()` (before each test) notes the stored objects;
 * `expectNothingStored(account)` then checks that nothing of a refused upload remains: no row, no
 * object, no storage or daily charge.
 */
export function refusedUploadChecks(env: () => TestEnv) {
  let objectsBefore: string[] = [];
  return {
    async snapshot() {
      objectsBefore = await storedObjects(env());
    },
    /** The stored objects at the snapshot. */
    objectsBefore: () => objectsBefore,
    async expectNothingStored(account: { id: string }) {
      expect(await fileRowsOf(env(), account.id)).to.have.length(0);
      expect(await storedObjects(env())).to.deep.equal(objectsBefore);
      expect(await storageUsedBy(env(), account.id)).to.equal(0);
      expect(await env().container.services.accounts.uploadsToday(account.id)).to.equal(0);
    },
  };
}

export function getWithHost(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
  connectPort?: number,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: connectPort ?? (target.port || 80), path: target.pathname + target.search, method, headers: { host: target.host, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
