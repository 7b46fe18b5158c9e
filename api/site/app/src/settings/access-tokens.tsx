import { useState } from 'preact/hooks';
import { KeyRound } from 'lucide';
import { SCOPE_NAMES, SCOPES, type Scope } from '../../../../../shared/scopes.js';
import { Icon } from '../../../views/icon.js';
import { api, ApiError, bodyOf, messageOf } from '../api.js';
import { formatDate } from '../format.js';
import type { AccessToken, NewAccessToken } from '../types.js';
import { useToasts } from '../toasts/toasts.js';
import { ConfirmDialog, DurationSelect, SecretOnce, Status, useAction, useLoad } from '../ui.js';
import { UPLOADER_TOOLS } from './uploader-configs.js';

// 0 stands for "never": the API then leaves expiresIn out.
const LIFETIMES = [
  { seconds: 0, label: 'Never' },
  { seconds: 7 * 86400, label: '7 days' },
  { seconds: 30 * 86400, label: '30 days' },
  { seconds: 90 * 86400, label: '90 days' },
  { seconds: 365 * 86400, label: '1 year' },
];

/** Downloads a config that carries a new upload-only token (a POST, as it mints one). */
async function downloadTokenConfig(tool: string): Promise<void> {
  const res = await fetch('/api/user/uploader-config', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tool }),
  });
  if (!res.ok) {
    const body = bodyOf(await res.text());
    throw new ApiError(res.status, messageOf(res.status, body), body);
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? `hosted-files-${tool}`;
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await res.blob());
  link.download = name;
  link.click();
  URL.revokeObjectURL(link.href);
}

function NewTokenForm({ onCreated }: { onCreated: (token: NewAccessToken) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['files:write']);
  const [lifetime, setLifetime] = useState(0);
  const action = useAction<'create'>();
  const toggle = (scope: Scope, on: boolean) => setScopes((current) => (on ? [...current, scope] : current.filter((s) => s !== scope)));

  const submit = (event: Event) => {
    event.preventDefault();
    if (scopes.length === 0) return action.setError('Choose at least one thing the token may do.');
    void action.run('create', async () => {
      const body = { name: name.trim(), scopes, ...(lifetime ? { expiresIn: lifetime } : {}) };
      const { data } = await api<{ data: NewAccessToken }>('/user/tokens', { method: 'POST', body });
      setName('');
      onCreated(data);
    });
  };

  return (
    <form class="token-form" onSubmit={submit} aria-labelledby="new-token-title">
      <h3 id="new-token-title">New token</h3>
      <div class="form-grid">
        <label>
          <span>Name</span>
          <input required maxLength={64} value={name} onInput={(e) => setName(e.currentTarget.value)} autoComplete="off" />
        </label>
        <DurationSelect label="Expires" value={lifetime} choices={LIFETIMES} onChange={setLifetime} />
      </div>
      <fieldset class="scopes">
        <legend>It may</legend>
        {SCOPE_NAMES.map((scope) => (
          <label key={scope} class="check">
            <input type="checkbox" checked={scopes.includes(scope)} onChange={(e) => toggle(scope, e.currentTarget.checked)} />
            <span>{SCOPES[scope]}</span>
          </label>
        ))}
      </fieldset>
      <Status error={action.error} />
      <div class="row">
        <button type="submit" class="primary" disabled={action.busy !== undefined}>
          {action.busy ? 'Creating…' : 'Create token'}
        </button>
      </div>
    </form>
  );
}

/**
 * Personal access tokens: what each may do, when it was last used, and Revoke; a new one's secret
 * is shown once. Uploader configs can carry a new upload-only token instead of the primary key.
 */
export function AccessTokens() {
  const tokens = useLoad((signal) => api<{ data: AccessToken[] }>('/user/tokens', { signal }).then((r) => r.data));
  const [created, setCreated] = useState<NewAccessToken | undefined>(undefined);
  const [revoking, setRevoking] = useState<AccessToken | undefined>(undefined);
  const download = useAction<string>();
  const toasts = useToasts();

  const onCreated = (token: NewAccessToken) => {
    setCreated(token);
    tokens.setData((current) => [token, ...(current ?? [])]);
  };
  const revoke = async (token: AccessToken) => {
    await api(`/user/tokens/${token.id}`, { method: 'DELETE' });
    tokens.setData((current) => current?.filter((t) => t.id !== token.id));
    if (created?.id === token.id) setCreated(undefined);
    toasts.show({ message: `${token.name} is revoked: it no longer works anywhere.` });
  };
  const configWithToken = (tool: string, label: string) =>
    download.run(tool, async () => {
      await downloadTokenConfig(tool);
      tokens.reload();
      return `${label} downloaded with a new upload-only token.`;
    });

  return (
    <section class="card" aria-labelledby="tokens-title">
      <h2 id="tokens-title">
        <Icon icon={KeyRound} />
        Access tokens
      </h2>
      <p class="muted">Give uploaders, scripts and CI jobs a token that may do only what they need, instead of the API key. Revoke one at any time.</p>
      {created && <SecretOnce lead={`Copy the token “${created.name}” now:`} value={created.token} what="token" testId="new-token" />}
      {tokens.error && <Status error={tokens.error} />}
      {tokens.data?.length === 0 && <p>No token yet.</p>}
      {tokens.data && tokens.data.length > 0 && (
        <ul class="assistants tokens">
          {tokens.data.map((t) => (
            <li key={t.id} class="assistant">
              <div>
                <strong id={`token-${t.id}`}>{t.name}</strong>
                <p class="muted">
                  May: {t.scopes.map((s) => SCOPES[s]).join('; ')}. Created {formatDate(t.createdAt)}
                  {t.expiresAt ? `, expires ${formatDate(t.expiresAt)}` : ''}
                  {t.lastUsedAt ? `, last used ${formatDate(t.lastUsedAt)}` : ', not used yet'}.
                </p>
              </div>
              <button type="button" class="danger" aria-describedby={`token-${t.id}`} onClick={() => setRevoking(t)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
      <NewTokenForm onCreated={onCreated} />
      <h3>Uploader configs with a new upload-only token</h3>
      <p class="muted">Each download makes a token that may only upload, named after the app.</p>
      <div class="row config-links">
        {UPLOADER_TOOLS.map(({ tool, label }) => (
          <button key={tool} type="button" disabled={download.busy !== undefined} onClick={() => void configWithToken(tool, label)}>
            {label}
          </button>
        ))}
      </div>
      <Status error={download.error} />
      {revoking && (
        <ConfirmDialog title={`Revoke ${revoking.name}?`} confirmLabel="Revoke token" danger onConfirm={() => revoke(revoking)} onClose={() => setRevoking(undefined)}>
          <p>Whatever uses it stops working at once. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
