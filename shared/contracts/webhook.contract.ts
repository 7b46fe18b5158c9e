import { z } from 'zod';
import { albumShareSchema } from './album.contract.js';
import { count, isoDate, uuid } from './common.contract.js';
import { dropLinkSchema } from './drop-link.contract.js';
import { fileRecordSchema } from './file.contract.js';
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, WEBHOOK_EVENTS, type WebhookEvent } from './values.js';

export { WEBHOOK_EVENT_TYPES, WEBHOOK_EVENTS, type WebhookEvent, type WebhookEventType } from './values.js';
export type FileEvent = Extract<WebhookEvent, `file.${string}`>;

export const MAX_WEBHOOK_ENDPOINTS = 10;

const eventSchema = z.enum(WEBHOOK_EVENTS, { error: `each event must be one of ${WEBHOOK_EVENTS.join(', ')}` });

/** An endpoint as listed: never its secret. */
export const webhookEndpointSchema = z
  .object({
    id: uuid,
    url: z.url(),
    events: z.array(eventSchema),
    description: z.string(),
    enabled: z.boolean(),
    disabledReason: z
      .enum(['gone', 'failing'])
      .nullable()
      .meta({ description: 'Why the service turned it off: gone (the receiver answered 410) or failing (20 failed attempts in a row); null when on or turned off by its owner' }),
    createdAt: isoDate,
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.output<typeof webhookEndpointSchema>;

/** The answer of its creation and of a rotation: the only times the secret is shown. */
export const webhookEndpointWithSecretSchema = webhookEndpointSchema
  .extend({
    secret: z.string().meta({ description: 'The signing secret (whsec_ + base64), shown in this answer only', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2Zq4MjFqNVs=' }),
  })
  .meta({ id: 'WebhookEndpointWithSecret' });
export type WebhookEndpointWithSecret = z.output<typeof webhookEndpointWithSecretSchema>;

/** One event sent (or being sent) to one endpoint. */
export const webhookDeliverySchema = z
  .object({
    id: z.string().meta({ description: 'The webhook-id header, the same on every attempt', example: 'msg_0b6f4c1e2d3a4b5c8d9e0f1a2b3c4d5e' }),
    eventType: z.enum(WEBHOOK_EVENT_TYPES),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    attempts: count,
    lastStatusCode: z.number().int().nullable().meta({ description: 'The receiver’s last answer; null when none came (refused, timed out)' }),
    lastError: z.string().nullable(),
    durationMs: count.nullable().meta({ description: 'How long the last attempt took' }),
    nextAttemptAt: isoDate.nullable().meta({ description: 'While pending' }),
    createdAt: isoDate,
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = z.output<typeof webhookDeliverySchema>;

const urlSchema = z
  .url({ protocol: /^https?$/, error: 'url must be an http or https URL' })
  .max(2000, 'url is at most 2000 characters')
  .meta({ example: 'https://example.com/hooks/files' });
// Stored in one canonical order, each once.
const eventsSchema = z
  .array(eventSchema, { error: 'events must be a list of event types' })
  .min(1, 'events must name at least one event')
  .transform((events) => WEBHOOK_EVENTS.filter((e) => events.includes(e)));
const descriptionSchema = z.string().trim().max(200, 'description is at most 200 characters');

export const createWebhookSchema = z.object({ url: urlSchema, events: eventsSchema, description: descriptionSchema.optional() });
export type CreateWebhook = z.output<typeof createWebhookSchema>;

export const updateWebhookSchema = z
  .object({ url: urlSchema.optional(), events: eventsSchema.optional(), description: descriptionSchema.optional(), enabled: z.boolean().optional() })
  .refine((input) => Object.values(input).some((v) => v !== undefined), { message: 'Give at least one of url, events, description, enabled' });
export type UpdateWebhook = z.output<typeof updateWebhookSchema>;

/** What `folder.shared` carries: the folder and its album link. */
export const sharedFolderSchema = albumShareSchema.extend({ id: uuid, name: z.string() }).meta({ id: 'SharedFolder' });
export type SharedFolder = z.output<typeof sharedFolderSchema>;

/** The body of every delivery (what the signature covers, byte for byte). */
export const webhookEventBodySchema = z
  .object({
    type: z.enum(WEBHOOK_EVENT_TYPES),
    timestamp: isoDate.meta({ description: 'When the event happened (webhook-timestamp is when this attempt was sent)' }),
    data: z.union([fileRecordSchema, dropLinkSchema, sharedFolderSchema, z.object({ endpointId: uuid })]).meta({
      description: 'file.*: the file as the dashboard lists it; drop.received: the drop link with its file; folder.shared: the folder; webhook.test: the endpoint’s id',
    }),
  })
  .meta({ id: 'WebhookEvent' });
