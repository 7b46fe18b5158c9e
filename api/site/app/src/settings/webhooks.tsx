import { useState } from 'preact/hooks';
import { Webhook } from 'lucide';
import { WEBHOOK_EVENTS } from '../../../../../shared/contracts/values.js';
import { Icon } from '../../../views/icon.js';
import { api } from '../api.js';
import { formatDate } from '../format.js';
import type { WebhookEndpoint, WebhookEndpointWithSecret, WebhookEvent } from '../types.js';
import { useToasts } from '../toasts/toasts.js';
import { ConfirmDialog, SecretOnce, Status, useAction, useLoad } from '../ui.js';
import { WebhookDeliveries } from './webhook-deliveries.js';
import './webhooks.css';

const EVENT_WORDS: Record<WebhookEvent, string> = {
  'file.uploaded': 'A file is uploaded (every way in, drops included)',
  'file.updated': 'A file is renamed, replaced, moved, or made private or public',
  'file.deleted': 'A file is deleted',
  'file.expired': 'A file expires',
  'file.quarantined': 'A file is blocked by moderation',
  'drop.received': 'A drop link receives its file',
  'folder.shared': 'A folder is shared as an album',
};

const DISABLED_WORDS: Record<NonNullable<WebhookEndpoint['disabledReason']>, string> = {
  gone: 'turned off: the receiver answered 410 Gone',
  failing: 'turned off: 20 deliveries in a row failed',
};

function NewEndpointForm({ onCreated }: { onCreated: (endpoint: WebhookEndpointWithSecret) => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(['file.uploaded']);
  const action = useAction<'create'>();
  const toggle = (event: WebhookEvent, on: boolean) => setEvents((current) => (on ? [...current, event] : current.filter((e) => e !== event)));

  const submit = (e: Event) => {
    e.preventDefault();
    if (events.length === 0) return action.setError('Choose at least one event to send.');
    void action.run('create', async () => {
      const { data } = await api<{ data: WebhookEndpointWithSecret }>('/user/webhooks', { method: 'POST', body: { url: url.trim(), events, description: description.trim() } });
      setUrl('');
      setDescription('');
      onCreated(data);
    });
  };

  return (
    <form class="token-form" onSubmit={submit} aria-labelledby="new-webhook-title">
      <h3 id="new-webhook-title">New endpoint</h3>
      <div class="form-grid">
        <label>
          <span>URL (http or https, reachable from the internet)</span>
          <input type="url" required maxLength={2000} value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://example.com/hooks" autoComplete="off" />
        </label>
        <label>
          <span>Description (optional)</span>
          <input maxLength={200} value={description} onInput={(e) => setDescription(e.currentTarget.value)} autoComplete="off" />
        </label>
      </div>
      <fieldset class="scopes">
        <legend>Send when</legend>
        {WEBHOOK_EVENTS.map((event) => (
          <label key={event} class="check">
            <input type="checkbox" checked={events.includes(event)} onChange={(e) => toggle(event, e.currentTarget.checked)} />
            <span>
              {EVENT_WORDS[event]} <code>{event}</code>
            </span>
          </label>
        ))}
      </fieldset>
      <Status error={action.error} />
      <div class="row">
        <button type="submit" class="primary" disabled={action.busy !== undefined}>
          {action.busy ? 'Adding…' : 'Add endpoint'}
        </button>
      </div>
    </form>
  );
}

type Confirming = { kind: 'rotate' | 'delete'; endpoint: WebhookEndpoint };

/**
 * Webhook endpoints: each one's events and state, a test event, its recent deliveries, turning it
 * off and on, a new secret, and delete. A secret is shown once, when made.
 */
export function Webhooks() {
  const endpoints = useLoad((signal) => api<{ data: WebhookEndpoint[] }>('/user/webhooks', { signal }).then((r) => r.data));
  const [secret, setSecret] = useState<WebhookEndpointWithSecret | undefined>(undefined);
  const [open, setOpen] = useState<{ id: string; version: number } | undefined>(undefined);
  const [confirming, setConfirming] = useState<Confirming | undefined>(undefined);
  const action = useAction<string>();
  const toasts = useToasts();

  const replace = (endpoint: WebhookEndpoint) => endpoints.setData((current) => current?.map((e) => (e.id === endpoint.id ? endpoint : e)));
  const onCreated = (endpoint: WebhookEndpointWithSecret) => {
    setSecret(endpoint);
    endpoints.setData((current) => [endpoint, ...(current ?? [])]);
  };
  const test = (endpoint: WebhookEndpoint) =>
    action.run(`test-${endpoint.id}`, async () => {
      await api(`/user/webhooks/${endpoint.id}/test`, { method: 'POST' });
      setOpen((current) => ({ id: endpoint.id, version: (current?.version ?? 0) + 1 }));
      return 'Test event sent: its delivery is listed below.';
    });
  const toggle = (endpoint: WebhookEndpoint) =>
    action.run(`toggle-${endpoint.id}`, async () => {
      const { data } = await api<{ data: WebhookEndpoint }>(`/user/webhooks/${endpoint.id}`, { method: 'PATCH', body: { enabled: !endpoint.enabled } });
      replace(data);
      return data.enabled ? 'Endpoint turned on.' : 'Endpoint turned off: nothing is sent to it.';
    });
  const rotate = async (endpoint: WebhookEndpoint) => {
    const { data } = await api<{ data: WebhookEndpointWithSecret }>(`/user/webhooks/${endpoint.id}/rotate-secret`, { method: 'POST' });
    setSecret(data);
    toasts.show({ message: 'New secret made: it alone signs every delivery from now on.' });
  };
  const remove = async (endpoint: WebhookEndpoint) => {
    await api(`/user/webhooks/${endpoint.id}`, { method: 'DELETE' });
    endpoints.setData((current) => current?.filter((e) => e.id !== endpoint.id));
    if (secret?.id === endpoint.id) setSecret(undefined);
    toasts.show({ message: 'Endpoint deleted.' });
  };

  return (
    <section class="card webhooks" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">
        <Icon icon={Webhook} />
        Webhooks
      </h2>
      <p class="muted">
        Get a signed POST when something happens to your files. Deliveries follow Standard Webhooks: check the <code>webhook-signature</code> header with
        the endpoint’s secret (for example with the <code>standardwebhooks</code> package). A failed delivery is retried for about a day.
      </p>
      {secret && <SecretOnce lead={`Copy the signing secret for ${secret.url} now:`} value={secret.secret} what="signing secret" testId="webhook-secret" />}
      {endpoints.error && <Status error={endpoints.error} />}
      {endpoints.data?.length === 0 && <p>No endpoint yet.</p>}
      {endpoints.data && endpoints.data.length > 0 && (
        <ul class="assistants">
          {endpoints.data.map((endpoint) => {
            const nameId = `webhook-${endpoint.id}`;
            return (
              <li key={endpoint.id} class="webhook">
                <div class="assistant">
                  <div>
                    <strong id={nameId} class="webhook-url">
                      {endpoint.url}
                    </strong>
                    {endpoint.description && <span class="muted"> · {endpoint.description}</span>}
                    <p class="muted">
                      {endpoint.enabled ? 'On' : `Off${endpoint.disabledReason ? ` (${DISABLED_WORDS[endpoint.disabledReason]})` : ''}`}. Sends{' '}
                      {endpoint.events.join(', ')}. Added {formatDate(endpoint.createdAt)}.
                    </p>
                  </div>
                  <div class="row">
                    <button type="button" class="small" aria-describedby={nameId} disabled={!endpoint.enabled || action.busy !== undefined} onClick={() => void test(endpoint)}>
                      Send test
                    </button>
                    <button
                      type="button"
                      class="small"
                      aria-describedby={nameId}
                      aria-expanded={open?.id === endpoint.id}
                      onClick={() => setOpen((current) => (current?.id === endpoint.id ? undefined : { id: endpoint.id, version: 0 }))}
                    >
                      Deliveries
                    </button>
                    <button type="button" class="small" aria-describedby={nameId} disabled={action.busy !== undefined} onClick={() => void toggle(endpoint)}>
                      {endpoint.enabled ? 'Turn off' : 'Turn on'}
                    </button>
                    <button type="button" class="small" aria-describedby={nameId} onClick={() => setConfirming({ kind: 'rotate', endpoint })}>
                      New secret
                    </button>
                    <button type="button" class="small danger" aria-describedby={nameId} onClick={() => setConfirming({ kind: 'delete', endpoint })}>
                      Delete
                    </button>
                  </div>
                </div>
                {open?.id === endpoint.id && <WebhookDeliveries endpointId={endpoint.id} version={open.version} />}
              </li>
            );
          })}
        </ul>
      )}
      <Status error={action.error} />
      <NewEndpointForm onCreated={onCreated} />
      {confirming?.kind === 'rotate' && (
        <ConfirmDialog title="Make a new signing secret?" confirmLabel="Make new secret" onConfirm={() => rotate(confirming.endpoint)} onClose={() => setConfirming(undefined)}>
          <p>The current secret stops signing at once, retries of earlier events included: update your receiver with the new one.</p>
        </ConfirmDialog>
      )}
      {confirming?.kind === 'delete' && (
        <ConfirmDialog title="Delete this endpoint?" confirmLabel="Delete endpoint" danger onConfirm={() => remove(confirming.endpoint)} onClose={() => setConfirming(undefined)}>
          <p>Nothing more is sent to {confirming.endpoint.url}, and its delivery history goes with it.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
