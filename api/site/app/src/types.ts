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
  // As `GET /api/user/folders` and the dashboard list folders:
  createdAt?: string;
  fileCount?: number;
  /** shared as an album, at `shareUrl` */
  shared?: boolean;
  shareUrl?: string | null;
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

/** What an upload answers (`POST /api/upload?format=json`, or `GET /api/uploads/:id/result` after tus). */
export interface UploadResult {
  url: string;
  filename: string;
  originalFilename: string;
  mimeType: string;
  sizeBytes: number;
  expiry: string | null;
  deletionUrl?: string;
}

/** `GET /api/upload/config`: the expiry choices and each plan's largest file, in bytes. */
export interface UploadConfig {
  expiryOptions: { value: string; label: string }[];
  maxFileSize: { anonymous: number; free: number; pro: number; registered: number; [plan: string]: number };
}

/** A notification, as listed and as the stream's `notification` event carries it. */
export interface AppNotification {
  id: string;
  type: string;
  title: string;
  message: string;
  read: boolean;
  data: { link?: unknown; linkText?: unknown; [key: string]: unknown };
  broadcastId: string | null;
  timestamp: string;
}

export interface PollOption {
  id: string;
  text: string;
  voteCount: number;
}

export interface Poll {
  id: string;
  question: string;
  description?: string;
  status: 'active' | 'closed';
  closedAt?: string | null;
  totalVotes: number;
  /** the option id this account voted for */
  userVote: string | null;
  options: PollOption[];
}

export type DropLinkStatus = 'pending' | 'received' | 'expired';

/** A file drop link (`/api/user/drop-links`). */
export interface DropLink {
  id: string;
  url: string;
  status: DropLinkStatus;
  note: string | null;
  folderId: string | null;
  maxSizeBytes: number | null;
  expiresAt: string;
  createdAt: string;
  receivedAt: string | null;
  file: FileRecord | null;
}

/** `GET /api/user/subdomain`: the URL style of new uploads. */
export interface UrlFormatSettings {
  format: 'subdomain' | 'short' | 'custom';
  subdomainUrl: string;
  standardUrl: string;
  customDomainActive: boolean;
  customDomainUrl: string | null;
}

/** One DNS record as the last check saw it. */
export interface DnsRecordCheck {
  type: 'CNAME' | 'TXT';
  name: string;
  expected: string;
  seen: string[];
  ok: boolean;
}

/** `GET /api/user/custom-domain` (Pro); with no domain only the status `none` and the CNAME target. */
export interface CustomDomainConfig {
  customDomain: string | null;
  customDomainStatus: string;
  cnameTarget: string;
  providerStatus?: string;
  sslStatus?: string;
  txtRecordName?: string;
  txtRecordValue?: string;
  sslValidationRecords?: { txt_name: string; txt_value: string }[];
  dnsChecks?: Record<string, boolean>;
  records?: DnsRecordCheck[];
  problems?: string[];
  lastCheckedAt?: string | null;
  nextCheckAt?: string | null;
  certificateExpiresAt?: string | null;
}

/** A connected assistant (`GET /api/user/connections`). */
export interface Connection {
  clientId: string;
  clientName: string | null;
  clientUri: string | null;
  scopes: string[];
  connectedAt: string;
  lastUsedAt: string | null;
}
