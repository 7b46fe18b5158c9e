import type { Scope } from '../../../shared/scopes.js';
import { checkFileHandoffTool } from './check-file-handoff.tool.js';
import { createFolderTool } from './create-folder.tool.js';
import { deleteFilesTool } from './delete-files.tool.js';
import { deleteFolderTool } from './delete-folder.tool.js';
import { getAccountTool } from './get-account.tool.js';
import { getFileTool } from './get-file.tool.js';
import { listFilesTool } from './list-files.tool.js';
import { listFoldersTool } from './list-folders.tool.js';
import { moveFilesTool } from './move-files.tool.js';
import { renameFilesTool } from './rename-files.tool.js';
import { requestFileFromUserTool } from './request-file-from-user.tool.js';
import { shareFolderTool } from './share-folder.tool.js';
import { uploadFileTool } from './upload-file.tool.js';
import { uploadFromUrlTool } from './upload-from-url.tool.js';
import { viewFileTool } from './view-file.tool.js';

/** The spec's fifteen tools, each with the scope it needs. */
export const TOOLS = [
  getAccountTool,
  listFilesTool,
  getFileTool,
  viewFileTool,
  requestFileFromUserTool,
  checkFileHandoffTool,
  uploadFileTool,
  uploadFromUrlTool,
  renameFilesTool,
  moveFilesTool,
  deleteFilesTool,
  listFoldersTool,
  createFolderTool,
  deleteFolderTool,
  shareFolderTool,
];

/** The scope each tool needs, by name. */
export const TOOL_SCOPES: Record<string, Scope> = Object.fromEntries(TOOLS.map((t) => [t.name, t.scope]));
