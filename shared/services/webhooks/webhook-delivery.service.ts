import type { Readable } from 'node:stream';
import type { SecretBox } from '../../crypto.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../db/integrations.schema.js';
import { JOBS, jobIds, type JobQueues } from '../../jobs.js';
import type { Logger } from '../../logger.js';
import { safeRequest } from '../../net/safe-fetch.js';
import type { DeliveryAttempt, WebhookDeliveryRepository } from '../../repositories/webhook-delivery.repository.js';
import type { NotificationService } from '../notifications/notification.service.js';
import type { DomainEvents } from './domain-events.js';
import { signWebhook } from './webhook-signature.js';

const TIMEOUT_MS = 10_000;
// What is read of a receiver's answer before it is dropped: enough to end the exchange politely.
const MAX_ANSWER_BYTES = 64 * 1024;
// This many failed attempts in a row, whatever the deliveries, turn an endpoint off.
export const FAILURES_TO_DISABLE = 20;
// A pending delivery this far past its due time without a job lost it (a Redis outage, a flushed queue).
const LOST_AFTER_MS = 60_000;
const SWEEP_BATCH = 500;
// Finished deliveries are kept this long: the listing shows the last 100 of each endpoint.
const KEPT_FOR_MS = 30 * 24 * 3600_000;

export interface WebhookDeliveryDeps {
  deliveries: WebhookDeliveryRepository;
  events: DomainEvents;
  jobs: JobQueues;
  box: SecretBox;
  notifications: NotificationService;
  logger: Logger;
  settings: {
    /** the wait before each retry (WEBHOOK_RETRY_DELAYS): its length is how many retries there are */
    retryDelaysMs: readonly number[];
    /** test-only origins that may be private (URL_FETCH_ALLOWED_ORIGINS) */
    allowedOrigins: readonly string[];
    siteUrl: string;
  };
}

/** What a delivery job does next: nothing (delivered, failed for good, gone), or run again in `retryInMs`. */
export interface DeliveryStep {
  retryInMs?: number;
}

/**
 * The worker side of webhooks: one attempt per job run, signed with the endpoint's current secret
 * and sent to a public address only, 10 s at most, no redirects followed (a 3xx is a failure). A
 * failure is retried on the configured schedule under the same webhook-id; a delivery that was
 * delivered is never sent again. 410 turns the endpoint off, and so do 20 failures in a row.
 */
export class WebhookDeliveryService {
  constructor(private readonly deps: WebhookDeliveryDeps) {}

  async deliver(id: string, signal: AbortSignal): Promise<DeliveryStep> {
    const found = await this.deps.deliveries.findWithEndpoint(id);
    if (!found || found.delivery.status !== 'pending') return {};
    const { delivery, endpoint } = found;
    if (!endpoint.enabled) {
      await this.deps.deliveries.fail(id, 'the endpoint is turned off');
      return {};
    }
    const attempt = await this.send(endpoint, delivery, signal);
    const attempts = delivery.attempts + 1;
    const succeeded = attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;
    const failures = await this.deps.deliveries.countAttempt(endpoint.id, succeeded);
    if (succeeded) {
      await this.deps.deliveries.recordAttempt(id, { ...attempt, attempts, status: 'delivered', nextAttemptAt: null });
      return {};
    }
    const disable = attempt.statusCode === 410 ? 'gone' : failures >= FAILURES_TO_DISABLE ? 'failing' : undefined;
    const retryInMs = disable ? undefined : this.deps.settings.retryDelaysMs[attempts - 1];
    const nextAttemptAt = retryInMs === undefined ? null : new Date(Date.now() + retryInMs);
    await this.deps.deliveries.recordAttempt(id, { ...attempt, attempts, status: nextAttemptAt ? 'pending' : 'failed', nextAttemptAt });
    if (disable) await this.disable(endpoint, disable);
    return retryInMs === undefined ? {} : { retryInMs };
  }

  /** Safety net behind the jobs queued with each event: pending deliveries long overdue whose job is gone (or failed) get one again. */
  async requeueLost(now = Date.now()): Promise<{ requeued: number; pruned: number }> {
    const queue = this.deps.jobs.queue(JOBS['webhook.deliver'].queue);
    const lost: string[] = [];
    for (const id of await this.deps.deliveries.overdue(new Date(now - LOST_AFTER_MS), SWEEP_BATCH)) {
      const job = await queue.getJob(jobIds.webhookDelivery(id));
      if (!job) lost.push(id);
      else if (await job.isFailed()) await job.retry('failed');
      else continue;
      this.deps.logger.warn({ deliveryId: id }, 'webhook delivery had lost its job; queued again');
    }
    await this.deps.events.queue(lost);
    const pruned = await this.deps.deliveries.prune(new Date(now - KEPT_FOR_MS));
    return { requeued: lost.length, pruned };
  }

  private async send(endpoint: WebhookEndpointRow, delivery: WebhookDeliveryRow, signal: AbortSignal): Promise<DeliveryAttempt> {
    const timestamp = Math.floor(Date.now() / 1000);
    const started = performance.now();
    const durationMs = () => Math.round(performance.now() - started);
    try {
      const answer = await safeRequest(endpoint.url, {
        method: 'POST',
        body: delivery.body,
        timeoutMs: TIMEOUT_MS,
        allowedOrigins: this.deps.settings.allowedOrigins,
        signal,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'hosted-file-service-webhooks/1',
          'webhook-id': delivery.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(this.deps.box.decrypt(endpoint.secretSealed), delivery.id, timestamp, delivery.body),
        },
      });
      await discard(answer.body);
      const status = answer.status;
      const error = status >= 300 && status < 400 ? `answered ${status}: redirects are not followed` : status >= 400 || status < 200 ? `answered ${status}` : null;
      return { statusCode: status, error, durationMs: durationMs() };
    } catch (err) {
      // Shutting down is no failure of the receiver's: the job runs again elsewhere.
      if (signal.aborted) throw err;
      return { statusCode: null, error: err instanceof Error ? err.message : String(err), durationMs: durationMs() };
    }
  }

  private async disable(endpoint: WebhookEndpointRow, reason: 'gone' | 'failing') {
    const why = reason === 'gone' ? 'the receiver answered 410 Gone' : `${FAILURES_TO_DISABLE} deliveries in a row failed`;
    const disabled = await this.deps.deliveries.disableEndpoint(endpoint.id, reason, `the endpoint was turned off: ${why}`);
    if (!disabled) return;
    this.deps.logger.info({ endpointId: endpoint.id, reason }, 'webhook endpoint turned off');
    await this.deps.notifications
      .notify(endpoint.accountId, {
        type: 'webhook',
        title: 'A webhook endpoint was turned off',
        message: `Events are no longer sent to ${endpoint.url}: ${why}. Turn it on again in your settings once it can take them.`,
        data: { endpointId: endpoint.id, reason, link: `${this.deps.settings.siteUrl}/dashboard/settings`, linkText: 'Open settings' },
      })
      .catch((err: unknown) => this.deps.logger.warn({ err, endpointId: endpoint.id }, 'could not tell the owner a webhook endpoint was turned off'));
  }
}

/** Reads at most MAX_ANSWER_BYTES of the answer and drops it; a body that fails midway changes nothing (its status came). */
async function discard(body: Readable): Promise<void> {
  let read = 0;
  try {
    for await (const chunk of body) {
      read += (chunk as Buffer).length;
      if (read >= MAX_ANSWER_BYTES) break;
    }
  } catch {
    // the status line is what counts
  } finally {
    body.destroy();
  }
}
