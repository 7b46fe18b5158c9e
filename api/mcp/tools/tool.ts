import type { z } from 'zod';
import type { Container } from '../../../shared/container.js';
import type { FileView } from '../../../shared/contracts/file.contract.js';
import { isAppError } from '../../../shared/errors.js';
import type { DropArrivals } from '../../../shared/services/folders/drop-link.service.js';
import type { Preview } from '../../../shared/services/media/file-preview.js';
import type { Scope } from '../../../shared/scopes.js';
import type { McpPrincipal } from '../../oauth/access-tokens.js';

/** What a tool is given besides its input: who calls, the services, and the request's life. */
export interface ToolContext {
  caller: McpPrincipal;
  services: Container['services'];
  arrivals: DropArrivals;
  uploadMaxBytes: number;
  signal: AbortSignal;
  /** Reports progress when the client asked for it (a no-op otherwise). */
  progress(done: number, total: number, message: string): Promise<void>;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface McpTool<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** The structured result (also sent as text), for view_file the picture itself, and the files to link. */
  run(context: ToolContext, input: z.output<I>): Promise<{ data: z.output<O>; image?: Preview; links?: FileView[] }>;
}

export const tool = <I extends z.ZodObject, O extends z.ZodObject>(definition: McpTool<I, O>) => definition;

export const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
export const DESTROY: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

/** Runs `work` per item: a refusal (an AppError) is that item's error; anything else fails the call. */
export async function perItem<T, R>(items: T[], name: (item: T) => string, work: (item: T) => Promise<R>) {
  const results: (R | { filename: string; ok: false; error: string })[] = [];
  for (const item of items) {
    try {
      results.push(await work(item));
    } catch (err) {
      if (!isAppError(err) || !err.expose) throw err;
      results.push({ filename: name(item), ok: false, error: err.message });
    }
  }
  return results;
}
