import {
  type CreateWebhook,
  MAX_WEBHOOK_ENDPOINTS,
  type UpdateWebhook,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
  type WebhookEvent,
} from '../../contracts/webhook.contract.js';
import type { SecretBox } from '../../crypto.js';
import type { WebhookEndpointRow } from '../../db/integrations.schema.js';
import { AppError } from '../../errors.js';
import { assertPublicUrl } from '../../net/safe-fetch.js';
import type { Principal } from '../../principal.js';
import type { DeliveryListing, WebhookDeliveryRepository } from '../../repositories/webhook-delivery.repository.js';
import type { WebhookEndpointRepository } from '../../repositories/webhook-endpoint.repository.js';
import { isId } from '../folders/folder.service.js';
import type { DomainEvents } from './domain-events.js';
import { newWebhookSecret } from './webhook-signature.js';

const DELIVERIES_LISTED = 100;

export interface WebhookServiceDeps {
  endpoints: WebhookEndpointRepository;
  deliveries: WebhookDeliveryRepository;
  events: DomainEvents;
  box: SecretBox;
  /** test-only origins that may be private (URL_FETCH_ALLOWED_ORIGINS) */
  allowedOrigins: readonly string[];
}

function endpointOf(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: row.events as WebhookEvent[],
    description: row.description,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    createdAt: row.createdAt.toISOString(),
  };
}

export function deliveryOf(row: DeliveryListing): WebhookDelivery {
  return {
    id: row.id,
    eventType: row.eventType as WebhookDelivery['eventType'],
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    durationMs: row.durationMs,
    nextAttemptAt: row.status === 'pending' ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    createdAt: row.createdAt.toISOString(),
  };
}

const notFound = () => AppError.notFound('Webhook endpoint not found');

/**
 * An account's webhook endpoints (Standard Webhooks). The signing secret is sealed, not hashed, since
 * the worker signs with it; it is shown only when made (create, rotate). A URL must reach a public
 * address when it is given, and again on every delivery (its name may resolve elsewhere later).
 */
export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  async create(account: Principal, input: CreateWebhook): Promise<WebhookEndpointWithSecret> {
    await assertPublicUrl(input.url, this.deps.allowedOrigins);
    const secret = newWebhookSecret();
    const outcome = await this.deps.endpoints.create(
      account.id,
      { url: input.url, events: input.events, description: input.description ?? '', secretSealed: this.deps.box.encrypt(secret) },
      MAX_WEBHOOK_ENDPOINTS,
    );
    if (!outcome.ok) throw AppError.badRequest(`An account holds at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first`);
    return { ...endpointOf(outcome.value), secret };
  }

  /** Newest first, without secrets. */
  async list(account: Principal): Promise<WebhookEndpoint[]> {
    return (await this.deps.endpoints.list(account.id)).map(endpointOf);
  }

  /** Turning it back on starts its failure count afresh; turning it off fails what it had pending. */
  async update(account: Principal, id: string, patch: UpdateWebhook): Promise<WebhookEndpoint> {
    if (!isId(id)) throw notFound();
    if (patch.url !== undefined) await assertPublicUrl(patch.url, this.deps.allowedOrigins);
    const row = await this.deps.endpoints.update(account.id, id, patch);
    if (!row) throw notFound();
    return endpointOf(row);
  }

  async delete(account: Principal, id: string): Promise<void> {
    if (!isId(id) || !(await this.deps.endpoints.delete(account.id, id))) throw notFound();
  }

  /** The old secret signs nothing more from now on, retries of earlier events included. */
  async rotateSecret(account: Principal, id: string): Promise<WebhookEndpointWithSecret> {
    const secret = newWebhookSecret();
    const row = isId(id) ? await this.deps.endpoints.rotateSecret(account.id, id, this.deps.box.encrypt(secret)) : undefined;
    if (!row) throw notFound();
    return { ...endpointOf(row), secret };
  }

  /** Sends `webhook.test` now; a turned-off endpoint is turned on first (409). */
  async test(account: Principal, id: string): Promise<WebhookDelivery> {
    const endpoint = isId(id) ? await this.deps.endpoints.findOwned(account.id, id) : undefined;
    if (!endpoint) throw notFound();
    if (!endpoint.enabled) throw AppError.conflict('This endpoint is turned off: turn it on to send it a test event');
    const delivery = await this.deps.events.sendTest(account.id, id);
    if (!delivery) throw notFound();
    return deliveryOf(delivery);
  }

  /** The endpoint's last 100 deliveries, newest first. */
  async deliveries(account: Principal, id: string): Promise<WebhookDelivery[]> {
    if (!isId(id) || !(await this.deps.endpoints.findOwned(account.id, id))) throw notFound();
    return (await this.deps.deliveries.listOwned(account.id, id, DELIVERIES_LISTED)).map(deliveryOf);
  }
}
