// The API's records as the dashboard reads them (interface-spec.md, plus the dashboard's extra fields).

export type ModerationState = 'pending' | 'allowed' | 'flagged' | 'blocked';

/** A file as `GET /api/user/dashboard` lists it. */
export interface FileRecord {
  filename: string;
  originalName: string;
  url: string;
  timestamp: string;
  updatedAt: string | null;
  size: number;
  folderId: string | null;
  source: string;
  isPrivate: boolean;
  // Beyond the spec's record, for the dashboard:
  mimeType: string;
  expiry: string | null;
  expiresAt: string | null;
  moderationState: ModerationState;
  /** small WebP (about 256 px), or null while it is made or when the file has none */
  thumbnailUrl: string | null;
  /** larger WebP (about 1280 px) for the file view, or null */
  previewUrl: string | null;
}

export interface Folder {
  id: string;
  name: string;
  userId: string;
}

export interface FolderKey {
  id: string;
  folderId: string;
  folderName?: string;
  createdAt?: string;
  [field: string]: unknown;
}

export interface Pagination {
  currentPage: number;
  totalPages: number;
  totalUploads: number;
  totalUserFiles: number;
  limit: number;
  hasNextPage: boolean;
  hasPrevPage: boolean;
}

export interface Profile {
  id: string;
  username: string;
  email: string;
  apiKey: string;
  plan: string;
  createdAt: string;
  defaultUploadFolderId: string | null;
  limits: { dailyLimit: number; monthlyStorageLimit: number };
  usage: { count: number; monthlyStorageUsed: number; todayCount?: number; remaining?: number };
  features?: { subdomain: boolean; shortUrl: boolean; folders: boolean };
  customDomain?: string | null;
  customDomainStatus?: string;
  [field: string]: unknown;
}

export interface DashboardData {
  user: Profile;
  uploads: FileRecord[];
  folders: Folder[];
  folderKeys: FolderKey[];
  pagination: Pagination;
}
