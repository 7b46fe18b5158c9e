import { z } from 'zod';

// Input fields several tools share, described for the assistant.

export const filenameInput = z.string().min(1).max(255).describe('the stored file name, as list_files gives it');
export const folderIdInput = z.string().max(64).nullable().optional().describe('a folder id from list_folders; null or absent: the library root');
export const itemResult = z.object({ filename: z.string(), ok: z.boolean(), error: z.string().optional() });
