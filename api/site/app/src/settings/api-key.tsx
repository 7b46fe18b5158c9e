import { useState } from 'preact/hooks';
import { Eye, EyeOff, RefreshCw } from 'lucide';
import { Icon } from '../../../views/icon.js';
import { api } from '../api.js';
import { plural } from '../format.js';
import type { Profile } from '../types.js';
import { useToasts } from '../toasts/toasts.js';
import { ConfirmDialog, CopyButton, Status, useAction } from '../ui.js';
import { UploaderConfigLinks } from './uploader-configs.js';

/** The key as the API gives it: read only when asked for, kept in this component's memory only. */
async function readApiKey(): Promise<string> {
  const { data } = await api<{ data: { user: Profile } }>('/auth/me');
  // Null only for an access token, which this page never uses.
  return data.user.apiKey ?? '';
}

/**
 * The primary API key: hidden until Reveal, copied without being shown, regenerated after a
 * confirmation. It never goes to localStorage or sessionStorage; the page itself works with the
 * session cookie.
 */
export function ApiKey() {
  const [key, setKey] = useState<string | undefined>(undefined);
  const action = useAction<'reveal'>();
  const toasts = useToasts();
  const [confirming, setConfirming] = useState(false);

  const reveal = async () => {
    if (key) return setKey(undefined);
    await action.run('reveal', async () => setKey(await readApiKey()));
  };

  const regenerate = async () => {
    const { data } = await api<{ data: { apiKey: string; regenerationInfo: { remainingThisMonth: number } } }>('/user/regenerate-api-key', { method: 'POST' });
    setKey(data.apiKey);
    const left = plural(data.regenerationInfo.remainingThisMonth, 'more regeneration');
    toasts.show({ message: `New key made: the old one no longer works. Update your apps and uploader configs. ${left} this month.`, durationMs: 12000 });
  };

  return (
    <section class="card" aria-labelledby="api-key-title">
      <h2 id="api-key-title">API key</h2>
      <p class="muted">Apps and scripts upload with this key. Keep it secret: anyone with it can use your account.</p>
      <div class="row api-key-row">
        <code class="api-key" aria-live="polite" data-testid="api-key">
          {key ?? (
            <>
              <span aria-hidden="true">•••••••• </span>hidden
            </>
          )}
        </code>
        <button type="button" aria-pressed={key !== undefined} disabled={action.busy !== undefined} onClick={() => void reveal()}>
          <Icon icon={key ? EyeOff : Eye} />
          {key ? 'Hide' : 'Reveal'}
        </button>
        <CopyButton text={key ?? readApiKey} what="API key" />
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          <Icon icon={RefreshCw} />
          Regenerate
        </button>
      </div>
      <Status error={action.error} />
      <h3>Uploader configs</h3>
      <p class="muted">Ready-made settings with this key filled in, to download and open in the app:</p>
      <UploaderConfigLinks />
      {confirming && (
        <ConfirmDialog title="Regenerate the API key?" confirmLabel="Regenerate key" danger onConfirm={regenerate} onClose={() => setConfirming(false)}>
          <p>
            The current key stops working at once: apps, scripts and uploader configs that use it must get the new one. Connected assistants stay
            connected; folder keys keep working.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
