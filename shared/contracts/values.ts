// The closed sets of values the records use, without zod: the front end imports these at run time.

/** The spec's expiry choices; '' (or none) means the file never expires. */
export const EXPIRY_OPTIONS = [
  { value: '', label: 'Never' },
  { value: '1h', label: '1 hour' },
  { value: '6h', label: '6 hours' },
  { value: '1d', label: '1 day' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
] as const;
/** The expiries a file can carry (never is null). */
export const EXPIRY_VALUES = ['1h', '6h', '1d', '7d', '30d'] as const;

export const MODERATION_STATES = ['pending', 'allowed', 'flagged', 'blocked'] as const;
export type ModerationState = (typeof MODERATION_STATES)[number];

export const DROP_LINK_STATUSES = ['pending', 'received', 'expired'] as const;
export type DropLinkStatus = (typeof DROP_LINK_STATUSES)[number];

/** The styles an account can choose for its new uploads. */
export const URL_FORMATS = ['subdomain', 'short', 'custom'] as const;
export type AccountUrlFormat = (typeof URL_FORMATS)[number];

/** The events a webhook endpoint can subscribe to. */
export const WEBHOOK_EVENTS = ['file.uploaded', 'file.updated', 'file.deleted', 'file.expired', 'file.quarantined', 'drop.received', 'folder.shared'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** Every event type a delivery carries: the subscribable ones and the test event, sent on request only. */
export const WEBHOOK_EVENT_TYPES = [...WEBHOOK_EVENTS, 'webhook.test'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
