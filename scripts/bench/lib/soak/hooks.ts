import { verified, type WebhookReceiver } from '../../../../test/helpers/webhook-receiver.js';
import type { SoakAccount } from './ledger.js';

/**
 * The signatures of the webhook requests the receiver got, each verified soon after it arrived:
 * Standard Webhooks refuses a timestamp more than 5 minutes off, so the end of a long run is too late.
 */
export class SignatureCheck {
  readonly bad: string[] = [];
  private next = 0;
  private readonly secrets: Map<string, string>;

  constructor(
    readonly receiver: WebhookReceiver,
    accounts: readonly SoakAccount[],
  ) {
    this.secrets = new Map(accounts.map((a) => [a.webhookPath, a.webhookSecret]));
  }

  /** Verifies every request that arrived since the last call. */
  catchUp(): void {
    for (; this.next < this.receiver.received.length; this.next++) {
      const hook = this.receiver.received[this.next]!;
      try {
        verified(hook, this.secrets.get(hook.path) ?? '');
      } catch (err) {
        this.bad.push(`${hook.path} ${String(hook.headers['webhook-id'])}: ${(err as Error).message}`);
      }
    }
  }
}
