import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import { formatDate } from '../format.js';
import { listenToNotifications } from '../notifications/stream.js';
import type { CustomDomainConfig } from '../types.js';
import { useToasts } from '../toasts/toasts.js';
import { ConfirmDialog, Status, useAction } from '../ui.js';
import { DnsRecords } from './dns-records.js';

// While a domain waits for its records, its state is read again this often (the API's own checks
// run minutes apart; "Check now" checks at once).
const POLL_MS = 4000;

const STATUS_WORDS: Record<string, string> = {
  pending: 'Waiting for the DNS records',
  active: 'Active: your files are served on this domain over HTTPS',
  failed: 'Not verified: the records were not seen within 7 days. Correct them, then check again.',
};

/** A Pro account's own domain: add it, publish the records shown, watch each check, remove it. */
export function CustomDomain({ onChanged }: { onChanged: () => void }) {
  const [config, setConfig] = useState<CustomDomainConfig | undefined>(undefined);
  const [refused, setRefused] = useState<string | undefined>(undefined);
  const { busy, error, setError, run } = useAction<'add' | 'verify'>();
  const toasts = useToasts();
  const [removing, setRemoving] = useState(false);
  const [domain, setDomain] = useState('');
  const status = config?.customDomainStatus;
  const lastStatusRef = useRef<string | undefined>(undefined);

  // Stable (setError is a state setter), so the effects below run when their own inputs change.
  const read = useCallback(
    async (signal?: AbortSignal) => {
      try {
        const { data } = await api<{ data: CustomDomainConfig }>('/user/custom-domain', { signal });
        setConfig(data);
      } catch (err) {
        if ((err as Error).name === 'AbortError') return;
        if (err instanceof ApiError && err.status === 403) setRefused(err.message);
        else setError((err as Error).message);
      }
    },
    [setError],
  );

  useEffect(() => {
    const controller = new AbortController();
    void read(controller.signal);
    // Activation (or failure) is also announced as a notification: read again at once.
    const stop = listenToNotifications({ notification: (n) => n.type === 'custom_domain' && void read() });
    return () => {
      controller.abort();
      stop();
    };
  }, [read]);

  useEffect(() => {
    if (status !== 'pending') return;
    const timer = setInterval(() => void read(), POLL_MS);
    return () => clearInterval(timer);
  }, [status, read]);

  // The link style's custom choice depends on the domain being active.
  useEffect(() => {
    if (lastStatusRef.current !== undefined && lastStatusRef.current !== status) onChanged();
    lastStatusRef.current = status;
  }, [status, onChanged]);

  const add = (event: Event) => {
    event.preventDefault();
    return run('add', async () => {
      const { data } = await api<{ data: CustomDomainConfig }>('/user/custom-domain', { method: 'POST', body: { domain: domain.trim() } });
      setConfig(data);
      return `${data.customDomain} added. Publish the three records below at your DNS provider.`;
    });
  };

  const verify = () =>
    run('verify', async () => {
      const { data } = await api<{ data: CustomDomainConfig }>('/user/custom-domain/verify', { method: 'POST' });
      // verify answers the checks; the rest (records seen, next check) comes with a read.
      setConfig((current) => ({ ...current, ...data }));
      await read();
      return data.customDomainStatus === 'active' ? 'All records hold: the domain is active.' : 'Checked: see each record below.';
    });

  const remove = async () => {
    await api('/user/custom-domain', { method: 'DELETE' });
    setConfig((current) => ({ customDomain: null, customDomainStatus: 'none', cnameTarget: current?.cnameTarget ?? '' }));
    setDomain('');
    toasts.show({ message: 'Custom domain removed. Its links use your subdomain again.' });
  };

  return (
    <section class="card" aria-labelledby="domain-title">
      <h2 id="domain-title">Custom domain</h2>
      {refused && (
        <p class="notice">
          Custom domains are part of the Pro plan: with Pro, your files can be served on a domain of your own, such as files.example.com.
          <span class="muted"> ({refused})</span>
        </p>
      )}
      {!config && !refused && !error && <p class="muted">Loading…</p>}
      {config && !config.customDomain && (
        <form onSubmit={(e) => void add(e)}>
          <p>Serve your files on a domain you own. You will publish a CNAME record to {config.cnameTarget} and two TXT records.</p>
          <div class="row">
            <label for="custom-domain-input">Domain</label>
            <input
              id="custom-domain-input"
              class="wide"
              value={domain}
              onInput={(e) => setDomain(e.currentTarget.value)}
              placeholder="files.example.com"
              autoComplete="off"
              spellcheck={false}
              required
            />
            <button type="submit" class="primary" disabled={busy === 'add'}>
              {busy === 'add' ? 'Adding…' : 'Add domain'}
            </button>
          </div>
        </form>
      )}
      {config?.customDomain && (
        <>
          <p>
            <strong class="domain-name">{config.customDomain}</strong>:{' '}
            <span class="domain-status">{STATUS_WORDS[config.customDomainStatus] ?? config.customDomainStatus}</span>
          </p>
          {config.customDomainStatus === 'active' && config.certificateExpiresAt && (
            <p class="muted">Certificate valid until {formatDate(config.certificateExpiresAt)}; it renews by itself.</p>
          )}
          <DnsRecords config={config} />
          {config.problems && config.problems.length > 0 && (
            <ul class="problems">
              {config.problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          )}
          <p class="muted">
            {config.lastCheckedAt ? `Last checked ${formatDate(config.lastCheckedAt)}.` : 'Not checked yet.'}
            {status === 'pending' && config.nextCheckAt ? ` Next automatic check ${formatDate(config.nextCheckAt)}.` : ''}
          </p>
          <div class="row">
            {config.customDomainStatus !== 'active' && (
              <button type="button" class="primary" disabled={busy === 'verify'} onClick={() => void verify()}>
                {busy === 'verify' ? 'Checking…' : 'Check now'}
              </button>
            )}
            <button type="button" class="danger" onClick={() => setRemoving(true)}>
              Remove domain
            </button>
          </div>
        </>
      )}
      <Status error={error} />
      {removing && config?.customDomain && (
        <ConfirmDialog title={`Remove ${config.customDomain}?`} confirmLabel="Remove domain" danger onConfirm={remove} onClose={() => setRemoving(false)}>
          <p>Its certificate is dropped and links in the custom style use your subdomain again. Adding it later means publishing new records.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
