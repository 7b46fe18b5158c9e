import { useState } from 'preact/hooks';
import { SCOPES } from '../../../../../shared/scopes.js';
import { api } from '../api.js';
import { formatDate } from '../format.js';
import type { Connection } from '../types.js';
import { useToasts } from '../toasts/toasts.js';
import { ConfirmDialog, Status, useLoad } from '../ui.js';


function nameOf(connection: Connection): string {
  return connection.clientName || hostOf(connection.clientUri) || connection.clientId;
}

function hostOf(uri: string | null): string | undefined {
  if (!uri) return undefined;
  try {
    return new URL(uri).host;
  } catch {
    return undefined;
  }
}

/** AI assistants connected over OAuth, each with what it may do and a Disconnect that ends its access at once. */
export function Assistants() {
  const { data, error, setData } = useLoad((signal) => api<{ data: { connections: Connection[] } }>('/user/connections', { signal }).then((r) => r.data.connections));
  const [leaving, setLeaving] = useState<Connection | undefined>(undefined);
  const toasts = useToasts();

  const disconnect = async (connection: Connection) => {
    await api(`/user/connections/${encodeURIComponent(connection.clientId)}`, { method: 'DELETE' });
    setData((current) => current?.filter((c) => c.clientId !== connection.clientId));
    toasts.show({ message: `${nameOf(connection)} is disconnected: its access ended.` });
  };

  return (
    <section class="card" aria-labelledby="assistants-title">
      <h2 id="assistants-title">Connected assistants</h2>
      <p class="muted">AI assistants you allowed to work with your files. They never see your API key.</p>
      {error && <Status error={error} />}
      {!data && !error && <p class="muted">Loading…</p>}
      {data?.length === 0 && <p>No assistant is connected.</p>}
      {data && data.length > 0 && (
        <ul class="assistants">
          {data.map((c) => {
            const id = `assistant-${encodeURIComponent(c.clientId).replace(/[^\w-]/g, '_')}`;
            const host = hostOf(c.clientUri);
            return (
              <li key={c.clientId} class="assistant">
                <div>
                  <strong id={id}>{nameOf(c)}</strong>
                  {host && host !== nameOf(c) && <span class="muted"> · {host}</span>}
                  <p class="muted">
                    May: {c.scopes.map((s) => SCOPES[s]).join('; ') || 'nothing'}. Connected {formatDate(c.connectedAt)}
                    {c.lastUsedAt ? `, last used ${formatDate(c.lastUsedAt)}` : ', not used yet'}.
                  </p>
                </div>
                <button type="button" class="danger" aria-describedby={id} onClick={() => setLeaving(c)}>
                  Disconnect
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {leaving && (
        <ConfirmDialog title={`Disconnect ${nameOf(leaving)}?`} confirmLabel="Disconnect" danger onConfirm={() => disconnect(leaving)} onClose={() => setLeaving(undefined)}>
          <p>It loses access at once. To use it again, connect it again from the assistant.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
