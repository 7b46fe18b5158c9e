// The API's records, as the service's own contracts define them (type-only: nothing of zod is bundled).
import type { z } from 'zod';
import type { connectionSchema } from '../../../../shared/contracts/connection.contract.js';
import type { customDomainSchema } from '../../../../shared/contracts/custom-domain.contract.js';
import type { dashboardSchema, paginationSchema } from '../../../../shared/contracts/dashboard.contract.js';

export type { AccessToken, NewAccessToken } from '../../../../shared/contracts/access-token.contract.js';
export type { DashboardUser, Profile } from '../../../../shared/contracts/account.contract.js';
export type { DropLink } from '../../../../shared/contracts/drop-link.contract.js';
export type { FileRecord } from '../../../../shared/contracts/file.contract.js';
export type { Folder, FolderKey } from '../../../../shared/contracts/folder.contract.js';
export type { Notification as AppNotification } from '../../../../shared/contracts/notification.contract.js';
export type { Poll, PollResults } from '../../../../shared/contracts/poll.contract.js';
export type { ShareLink } from '../../../../shared/contracts/share-link.contract.js';
export type { Settings } from '../../../../shared/contracts/settings.contract.js';
export type { UploadConfig, UploadResult } from '../../../../shared/contracts/upload.contract.js';
export type { UrlFormatSettings } from '../../../../shared/contracts/url-format.contract.js';
export type { DropLinkStatus, ModerationState, WebhookEvent } from '../../../../shared/contracts/values.js';
export type { WebhookDelivery, WebhookEndpoint, WebhookEndpointWithSecret } from '../../../../shared/contracts/webhook.contract.js';

export type DashboardData = z.output<typeof dashboardSchema>;
export type Pagination = z.output<typeof paginationSchema>;
export type Connection = z.output<typeof connectionSchema>;
/** `GET /api/user/custom-domain` (Pro): with no domain only the status `none` and the CNAME target. */
export type CustomDomainConfig = { customDomain: string | null; customDomainStatus: string; cnameTarget: string } & Partial<Omit<z.output<typeof customDomainSchema>, 'customDomain' | 'customDomainStatus' | 'cnameTarget'>>;
export type DnsRecordCheck = NonNullable<CustomDomainConfig['records']>[number];
