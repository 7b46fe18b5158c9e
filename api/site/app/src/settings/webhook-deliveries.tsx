import { api } from '../api.js';
import { formatDate } from '../format.js';
import type { WebhookDelivery } from '../types.js';
import { Status, useLoad } from '../ui.js';

const STATUS_WORDS: Record<WebhookDelivery['status'], string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' };

/** What the receiver last answered, in a few words. */
function answerOf(d: WebhookDelivery): string {
  if (d.lastStatusCode !== null) return String(d.lastStatusCode);
  return d.lastError ?? (d.attempts === 0 ? 'Not sent yet' : '—');
}

/** An endpoint's last 100 deliveries, newest first, as a table; `version` changes reload it (a test just sent). */
export function WebhookDeliveries({ endpointId, version }: { endpointId: string; version: number }) {
  const deliveries = useLoad(
    (signal) => api<{ data: WebhookDelivery[] }>(`/user/webhooks/${endpointId}/deliveries`, { signal }).then((r) => r.data),
    `${endpointId}:${version}`,
  );
  const captionId = `deliveries-${endpointId}`;
  return (
    <div class="webhook-deliveries">
      <div class="row">
        <h4 id={captionId}>Recent deliveries</h4>
        <button type="button" class="small" onClick={deliveries.reload}>
          Refresh
        </button>
      </div>
      {deliveries.error && <Status error={deliveries.error} />}
      {!deliveries.data && !deliveries.error && <p class="muted">Loading…</p>}
      {deliveries.data?.length === 0 && <p class="muted">Nothing sent yet.</p>}
      {deliveries.data && deliveries.data.length > 0 && (
        <div class="table-scroll">
          <table aria-labelledby={captionId}>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">Took</th>
                <th scope="col">Next attempt</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data.map((d) => (
                <tr key={d.id} data-delivery={d.id}>
                  <td>
                    <code>{d.eventType}</code>
                  </td>
                  <td class={`delivery-${d.status}`}>{STATUS_WORDS[d.status]}</td>
                  <td>{d.attempts}</td>
                  <td title={d.lastError ?? undefined}>{answerOf(d)}</td>
                  <td>{d.durationMs === null ? '—' : `${d.durationMs} ms`}</td>
                  <td>{formatDate(d.nextAttemptAt)}</td>
                  <td>{formatDate(d.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
