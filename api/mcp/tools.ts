import { Readable } from 'node:stream';
import { z } from 'zod';
import type { Container } from '../../shared/container.js';
import { AppError, isAppError } from '../../shared/errors.js';
import { FILE_KINDS } from '../../shared/file-kinds.js';
import type { DropArrivals } from '../../shared/services/drop-link.service.js';
import { MAX_DROP_WAIT_SECONDS } from '../../shared/services/drop-link.service.js';
import { expirySchema } from '../../shared/services/expiry.js';
import { browseFilesSchema } from '../../shared/services/file-browser.service.js';
import type { Preview } from '../../shared/services/file-preview.js';
import type { McpScope } from '../../shared/services/oauth/oauth-scopes.js';
import { validate } from '../../shared/validation.js';
import type { McpPrincipal } from '../oauth/access-tokens.js';
import { renameSchema } from '../routes/files.schemas.js';

/** What a tool is given besides its input: who calls, the services, and the request's life. */
export interface ToolContext {
  caller: McpPrincipal;
  services: Container['services'];
  rateLimits: Container['rateLimits'];
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
  scope: McpScope;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** The structured result (also sent as text), and for view_file the picture itself. */
  run(context: ToolContext, input: z.output<I>): Promise<{ data: z.output<O>; image?: Preview }>;
}

const tool = <I extends z.ZodObject, O extends z.ZodObject>(definition: McpTool<I, O>) => definition;

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const DESTROY: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

const filename = z.string().min(1).max(255).describe('the stored file name, as list_files gives it');
const folderIdInput = z.string().max(64).nullable().optional().describe('a folder id from list_folders; null or absent: the library root');
const expiryInput = z.enum(['', '1h', '6h', '1d', '7d', '30d']).optional().describe("when the file is deleted; '' or absent: never");

const fileView = z.object({
  filename: z.string(),
  originalName: z.string(),
  url: z.string(),
  size: z.number(),
  mimeType: z.string(),
  kind: z.enum(FILE_KINDS),
  uploadedAt: z.string(),
  folder: z.object({ id: z.string(), name: z.string() }).nullable(),
  isPrivate: z.boolean(),
  expiresAt: z.string().nullable(),
});
const uploaded = z.object({
  url: z.string(),
  filename: z.string(),
  originalFilename: z.string(),
  mimeType: z.string(),
  sizeBytes: z.number(),
  expiry: z.string().nullable(),
  deletionUrl: z.string(),
});
const folder = z.looseObject({ id: z.string(), name: z.string(), createdAt: z.string(), fileCount: z.number(), shared: z.boolean(), shareUrl: z.string().nullable() });
const dropLink = z.looseObject({
  id: z.string(),
  url: z.string(),
  status: z.string(),
  note: z.string().nullable(),
  folderId: z.string().nullable(),
  maxSizeBytes: z.number().nullable(),
  expiresAt: z.string(),
  receivedAt: z.string().nullable(),
  file: z.looseObject({ filename: z.string(), originalName: z.string(), url: z.string(), size: z.number(), mimeType: z.string() }).nullable(),
});
const itemResult = z.object({ filename: z.string(), ok: z.boolean(), error: z.string().optional() });

/** Runs `work` per item: a refusal (an AppError) is that item's error; anything else fails the call. */
async function perItem<T, R>(items: T[], name: (item: T) => string, work: (item: T) => Promise<R>) {
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

/** The folder an upload goes into: one of the account's own (checked), or its default. */
async function uploaderFor({ caller, services }: ToolContext, folderId: string | null | undefined) {
  const target = folderId ? (await services.folders.get(caller.account, folderId)).id : null;
  return { account: caller.account, folderId: target };
}

async function assertMayUpload(context: ToolContext, uploader: Awaited<ReturnType<typeof uploaderFor>>) {
  await context.rateLimits.uploadsByKey.consume(context.caller.account.id);
  await context.services.uploads.assertCanUpload(uploader);
}

/** The spec's fifteen tools, each with the scope it needs. */
export const TOOLS = [
  tool({
    name: 'get_account',
    title: 'Account',
    description: 'The account: username, plan, limits, usage and what is left today.',
    scope: 'account:read',
    input: z.object({}),
    output: z.object({
      username: z.string(),
      plan: z.string(),
      limits: z.object({ dailyLimit: z.number(), monthlyStorageLimit: z.number(), maxFileSizeBytes: z.number(), maxFolders: z.number().nullable() }),
      usage: z.object({ uploadsToday: z.number(), storageUsedBytes: z.number(), files: z.number() }),
      remaining: z.object({ uploadsToday: z.number(), storageBytes: z.number() }),
    }),
    annotations: READ,
    run: async ({ caller, services }) => ({ data: await services.accounts.overview(caller.account) }),
  }),
  tool({
    name: 'list_files',
    title: 'List files',
    description: 'Files newest first, 25 a page (pass nextCursor for more); filter by name, folder (or root), kind, upload date.',
    scope: 'files:read',
    input: z.object({
      cursor: z.string().max(200).optional(),
      limit: z.number().int().min(1).max(100).optional(),
      search: z.string().max(100).optional(),
      folderId: z.string().max(64).optional().describe("a folder id, or 'root' for files outside folders"),
      kind: z.enum(FILE_KINDS).optional(),
      uploadedAfter: z.string().optional().describe('ISO 8601 date-time'),
      uploadedBefore: z.string().optional().describe('ISO 8601 date-time'),
    }),
    output: z.object({ files: z.array(fileView), nextCursor: z.string().nullable() }),
    annotations: READ,
    run: async ({ caller, services }, input) => ({ data: await services.fileBrowser.list(caller.account, validate(browseFilesSchema, input)) }),
  }),
  tool({
    name: 'get_file',
    title: 'File details',
    description: "One file: its URL (in the account's URL style), size, type, kind, upload time, folder, privacy and expiry.",
    scope: 'files:read',
    input: z.object({ filename }),
    output: fileView,
    annotations: READ,
    run: async ({ caller, services }, { filename }) => ({ data: await services.fileBrowser.get(caller.account, filename) }),
  }),
  tool({
    name: 'view_file',
    title: 'Look at a file',
    description: 'Shows an image (or a video frame) downscaled to at most 1568 px; other kinds come back as details and a link.',
    scope: 'files:read',
    input: z.object({ filename }),
    output: z.object({ file: fileView, shown: z.boolean(), note: z.string().optional() }),
    annotations: READ,
    run: async ({ caller, services, signal }, { filename }) => {
      const { file, image, note } = await services.fileBrowser.preview(caller.account, filename, signal);
      return { data: { file, shown: Boolean(image), ...(note ? { note } : {}) }, ...(image ? { image } : {}) };
    },
  }),
  tool({
    name: 'request_file_from_user',
    title: 'Ask for a file',
    description: 'Makes a single-use drop link for someone to upload one file into the library (no account needed); then call check_file_handoff.',
    scope: 'files:write',
    input: z.object({
      folderId: folderIdInput,
      maxSizeBytes: z.number().int().positive().optional(),
      note: z.string().max(500).optional().describe('shown on the drop page'),
      expiresIn: z.number().int().min(60).max(604800).optional().describe('seconds the link stays open (default 3600)'),
    }),
    output: dropLink,
    annotations: WRITE,
    run: async ({ caller, services }, input) => ({ data: await services.dropLinks.create(caller.account, { expiresIn: 3600, ...input }) }),
  }),
  tool({
    name: 'check_file_handoff',
    title: 'Wait for a requested file',
    description: `Waits up to ${MAX_DROP_WAIT_SECONDS - 5} s for the file of a drop link; answers pending (call again) or received with the file.`,
    scope: 'files:read',
    input: z.object({ id: z.string().max(64).describe('the id request_file_from_user gave'), waitSeconds: z.number().int().min(0).max(MAX_DROP_WAIT_SECONDS - 5).optional() }),
    output: dropLink,
    annotations: READ,
    run: async ({ caller, services, arrivals, signal, progress }, { id, waitSeconds }) => {
      const seconds = waitSeconds ?? MAX_DROP_WAIT_SECONDS - 5;
      const started = Date.now();
      // Progress at once and then every few seconds while waiting, so clients see the call is alive.
      const report = () => void progress(Math.round((Date.now() - started) / 1000), seconds, 'waiting for the file').catch(() => undefined);
      report();
      const beat = setInterval(report, 5000);
      try {
        return { data: await services.dropLinks.get(caller.account, id, { waitSeconds: seconds, arrivals, signal }) };
      } finally {
        clearInterval(beat);
      }
    },
  }),
  tool({
    name: 'upload_file',
    title: 'Upload a file',
    description: 'Uploads base64 content as a new file (its type is read from the bytes). Same limits as every upload.',
    scope: 'files:write',
    input: z.object({
      filename: z.string().min(1).max(255).describe('the original name, e.g. chart.png'),
      contentBase64: z.string().describe('the file, base64'),
      folderId: folderIdInput,
      expiry: expiryInput,
    }),
    output: uploaded,
    annotations: WRITE,
    run: async (context, input) => {
      const base64 = input.contentBase64.replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 === 1) throw AppError.badRequest('contentBase64 is not base64');
      const size = Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);
      if (size === 0) throw AppError.badRequest('contentBase64 is empty');
      if (size > context.uploadMaxBytes) throw AppError.tooLarge(`upload_file takes at most ${context.uploadMaxBytes} bytes; use upload_from_url for larger files`);
      const uploader = await uploaderFor(context, input.folderId);
      await assertMayUpload(context, uploader);
      const body = Readable.from([Buffer.from(base64, 'base64')]);
      const expiry = validate(expirySchema, input.expiry);
      return { data: await context.services.uploads.upload(uploader, body, { originalName: input.filename, expiry, source: 'mcp', signal: context.signal }) };
    },
  }),
  tool({
    name: 'upload_from_url',
    title: 'Upload from a URL',
    description: 'Fetches a public image URL and stores it as a new file (private addresses are refused).',
    scope: 'files:write',
    input: z.object({ url: z.string().max(2048), folderId: folderIdInput, expiry: expiryInput }),
    output: uploaded,
    annotations: { ...WRITE, openWorldHint: true },
    run: async (context, input) => {
      const uploader = await uploaderFor(context, input.folderId);
      await assertMayUpload(context, uploader);
      const expiry = validate(expirySchema, input.expiry);
      const data = await context.services.urlUploads.request({ accountId: uploader.account.id, folderId: uploader.folderId, imageUrl: input.url, expiry, source: 'mcp' });
      return { data };
    },
  }),
  tool({
    name: 'rename_files',
    title: 'Rename files',
    description: 'Renames one or more files (the URL changes); each result has the new URL or its error.',
    scope: 'files:write',
    input: z.object({ renames: z.array(z.object({ filename, newFilename: z.string().max(255) })).min(1).max(100) }),
    output: z.object({ results: z.array(itemResult.extend({ newFilename: z.string().optional(), url: z.string().optional() })) }),
    annotations: WRITE,
    run: async ({ caller, services }, { renames }) => ({
      data: {
        results: await perItem(renames, (r) => r.filename, async ({ filename, newFilename }) => {
          const renamed = await services.files.rename(caller.account, filename, validate(renameSchema, { newFilename }).newFilename);
          return { filename, ok: true, newFilename: renamed.newFilename, url: renamed.newUrl };
        }),
      },
    }),
  }),
  tool({
    name: 'move_files',
    title: 'Move files',
    description: 'Moves files into a folder, or to the library root with folderId null; each file reports its own result.',
    scope: 'files:write',
    input: z.object({ filenames: z.array(filename).min(1).max(1000), folderId: z.string().max(64).nullable() }),
    output: z.object({ results: z.array(itemResult), folderId: z.string().nullable() }),
    annotations: { ...WRITE, idempotentHint: true },
    run: async ({ caller, services }, { filenames, folderId }) => {
      const { moved, errors } = await services.files.moveMany(caller.account, filenames, folderId);
      const results = [...moved.map((f) => ({ filename: f, ok: true })), ...errors.map((e) => ({ filename: e.filename, ok: false, error: e.error }))];
      return { data: { results, folderId } };
    },
  }),
  tool({
    name: 'delete_files',
    title: 'Delete files',
    description: 'Deletes files for good (their URLs stop working at once); each file reports its own result.',
    scope: 'files:delete',
    input: z.object({ filenames: z.array(filename).min(1).max(100) }),
    output: z.object({ results: z.array(itemResult) }),
    annotations: DESTROY,
    run: async ({ caller, services }, { filenames }) => ({
      data: {
        results: await perItem([...new Set(filenames)], (f) => f, async (f) => {
          await services.files.deleteOwned(caller.account, f);
          return { filename: f, ok: true };
        }),
      },
    }),
  }),
  tool({
    name: 'list_folders',
    title: 'List folders',
    description: 'Folders with their file counts and whether each is shared as an album.',
    scope: 'folders:read',
    input: z.object({}),
    output: z.object({ folders: z.array(folder) }),
    annotations: READ,
    run: async ({ caller, services }) => ({ data: { folders: await services.folders.list(caller.account) } }),
  }),
  tool({
    name: 'create_folder',
    title: 'Create a folder',
    description: 'Creates a folder (names are unique per account, at most 40 characters).',
    scope: 'folders:write',
    input: z.object({ name: z.string().trim().min(1).max(40) }),
    output: folder,
    annotations: WRITE,
    run: async ({ caller, services }, { name }) => ({ data: await services.folders.create(caller.account, name) }),
  }),
  tool({
    name: 'delete_folder',
    title: 'Delete a folder',
    description: 'Deletes a folder for good; its files move to the library root.',
    scope: 'folders:write',
    input: z.object({ folderId: z.string().max(64) }),
    output: z.object({ deleted: z.boolean(), folderId: z.string() }),
    annotations: DESTROY,
    run: async ({ caller, services }, { folderId }) => {
      await services.folders.delete(caller.account, folderId);
      return { data: { deleted: true, folderId } };
    },
  }),
  tool({
    name: 'share_folder',
    title: 'Share a folder',
    description: 'Shares a folder as a public album (its link), or stops sharing it with shared: false.',
    scope: 'folders:write',
    input: z.object({ folderId: z.string().max(64), shared: z.boolean().optional().describe('false stops sharing (default true)') }),
    output: z.object({ folderId: z.string(), shared: z.boolean(), url: z.string().nullable(), sharedAt: z.string().nullable() }),
    annotations: { ...WRITE, idempotentHint: true },
    run: async ({ caller, services }, { folderId, shared }) => {
      if (shared === false) {
        await services.albums.unshare(caller.account, folderId);
        return { data: { folderId, shared: false, url: null, sharedAt: null } };
      }
      const album = await services.albums.share(caller.account, folderId);
      return { data: { folderId, shared: true, url: album.url, sharedAt: album.sharedAt } };
    },
  }),
];

/** The scope each tool needs, by name. */
export const TOOL_SCOPES: Record<string, McpScope> = Object.fromEntries(TOOLS.map((t) => [t.name, t.scope]));
