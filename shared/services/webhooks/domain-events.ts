import type { FileRecord } from '../../contracts/file.contract.js';
import type { FileEvent, WebhookEvent } from '../../contracts/webhook.contract.js';
import type { FileRow } from '../../db/schema.js';
import { jobIds, type JobQueues } from '../../jobs.js';
import type { Logger } from '../../logger.js';
import type { DeliveryListing, WebhookDeliveryRepository } from '../../repositories/webhook-delivery.repository.js';
import type { UrlOwner } from '../files/file-urls.js';

/** An account as its files' URLs name it. */
export type EventOwner = UrlOwner & { id: string };

export interface DomainEventsDeps {
  deliveries: WebhookDeliveryRepository;
  jobs: JobQueues;
  logger: Logger;
  /** a file as the dashboard lists it (FileRecords.of) */
  recordOf: (file: FileRow, owner: UrlOwner) => FileRecord;
}

/**
 * The one seam through which services say what happened to an account's files, drop links and
 * folders. Durable first: an event becomes a delivery row per endpoint that takes it, then a job per
 * row (the sweep queues any whose job was lost). An account without webhooks pays one indexed query,
 * and an event's data is built only when some endpoint listens. It never fails its caller: what
 * happened has happened, and an answer must not say otherwise.
 */
export class DomainEvents {
  constructor(private readonly deps: DomainEventsDeps) {}

  /** One event per item `data` gives, to the account's enabled endpoints that take `type`. */
  async emit(accountId: string | null | undefined, type: WebhookEvent, data: () => readonly unknown[] | Promise<readonly unknown[]>): Promise<void> {
    // Anonymous files belong to nobody who could subscribe.
    if (!accountId) return;
    try {
      if (!(await this.deps.deliveries.hasListener(accountId, type))) return;
      const timestamp = new Date().toISOString();
      const bodies = (await data()).map((item) => JSON.stringify({ type, timestamp, data: item }));
      if (bodies.length > 0) await this.queue(await this.deps.deliveries.record(accountId, type, bodies));
    } catch (err) {
      this.deps.logger.error({ err, accountId, type }, 'could not record a webhook event');
    }
  }

  /** file.*: each file as the dashboard lists it; `owner` null (an anonymous upload): nothing. */
  async files(type: FileEvent, owner: EventOwner | null | undefined, files: readonly FileRow[]): Promise<void> {
    if (owner && files.length > 0) await this.emit(owner.id, type, () => files.map((file) => this.deps.recordOf(file, owner)));
  }

  /** file.* for many owners' files at once (an expiry batch): one query finds the owners that listen. */
  async filesOfOwners(type: FileEvent, batch: readonly { owner: EventOwner; files: readonly FileRow[] }[]): Promise<void> {
    let listening: Set<string>;
    try {
      listening = await this.deps.deliveries.listenersAmong(batch.map(({ owner }) => owner.id), type);
    } catch (err) {
      this.deps.logger.error({ err, type }, 'could not record webhook events');
      return;
    }
    await Promise.all(batch.filter(({ owner }) => listening.has(owner.id)).map(({ owner, files }) => this.files(type, owner, files)));
  }

  /** webhook.test to one of the account's endpoints, whatever it subscribes to; undefined when it has none of that id. */
  async sendTest(accountId: string, endpointId: string): Promise<DeliveryListing | undefined> {
    const body = JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: { endpointId } });
    const delivery = await this.deps.deliveries.recordTest(accountId, endpointId, body);
    if (delivery) await this.queue([delivery.id]);
    return delivery;
  }

  /** A job per delivery under its id, so none is queued twice; what Redis cannot take now the sweep queues later. */
  async queue(deliveryIds: readonly string[]): Promise<void> {
    await Promise.all(
      deliveryIds.map((id) =>
        this.deps.jobs.add('webhook.deliver', { deliveryId: id }, { jobId: jobIds.webhookDelivery(id) }).catch((err: unknown) => {
          this.deps.logger.warn({ err, deliveryId: id }, 'could not queue a webhook delivery; the sweep will');
        }),
      ),
    );
  }
}
