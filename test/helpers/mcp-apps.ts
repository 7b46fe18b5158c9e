import type { Client } from '@modelcontextprotocol/client';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { files, type FileRow } from '../../shared/db/schema.js';
import type { TestEnv } from './test-env.js';

/** What a host that shows MCP Apps advertises (the client's options for `mcpClient`). */
export const APPS_HOST = { capabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } } } as ConstructorParameters<typeof Client>[1];

/** A real picture (a thumbnail can be made of it), `seed` varying its colour. */
export function photoBytes(seed = 0): Promise<Buffer> {
  return sharp({ create: { width: 96, height: 64, channels: 3, background: { r: (seed * 70) % 256, g: 120, b: 200 } } })
    .png()
    .toBuffer();
}

/** Uploads a picture through the REST API and makes its thumbnails (the job's own service call); its row. */
export async function photoWithThumbnails(env: TestEnv, apiKey: string, name: string, seed = 0): Promise<FileRow> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(await photoBytes(seed))]), name);
  const res = await env.api.post('/api/upload?format=json', { key: apiKey, body: form });
  if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${res.text}`);
  const filename = (res.body.data as { filename: string }).filename;
  const [row] = await env.container.db.select().from(files).where(eq(files.filename, filename));
  if ((await env.container.services.thumbnails.make(row!.id, row!.objectKey)) !== 'made') throw new Error('no thumbnail made');
  return row!;
}
