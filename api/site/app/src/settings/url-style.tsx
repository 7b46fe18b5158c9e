import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { session } from '../session.js';
import type { UrlFormatSettings } from '../types.js';
import { Status, useAction } from '../ui.js';

type Format = UrlFormatSettings['format'];

/** A stored name (10 random characters and the extension) and a short code (7), as uploads get them. */
const EXAMPLE_NAME = 'x7Kp2Qa9Lm.png';
const EXAMPLE_CODE = 'aB3dE9k';

/** The URL style of new uploads: personal subdomain, short URL, or the verified custom domain. */
export function UrlStyle({ settings, onSaved }: { settings: UrlFormatSettings; onSaved: (format: Format) => void }) {
  const [choice, setChoice] = useState<Format>(settings.format);
  const action = useAction<'save'>();
  useEffect(() => setChoice(settings.format), [settings.format]);

  const save = async (event: Event) => {
    event.preventDefault();
    await action.run('save', async () => {
      const { data } = await api<{ data: { format: Format; message: string } }>('/user/subdomain', { method: 'POST', body: { format: choice } });
      onSaved(data.format);
      return `${data.message}.`;
    });
  };

  // The shapes file-urls.ts builds: the stored name under the subdomain or the domain, a short code under /s/.
  const options: { value: Format; label: string; example: string; disabled?: boolean; note?: string }[] = [
    { value: 'subdomain', label: 'Personal subdomain', example: `${settings.subdomainUrl}/${EXAMPLE_NAME}` },
    { value: 'short', label: 'Short URL', example: `${new URL(settings.standardUrl).origin}/s/${EXAMPLE_CODE}` },
    {
      value: 'custom',
      label: 'Custom domain',
      example: settings.customDomainUrl ? `${settings.customDomainUrl}/${EXAMPLE_NAME}` : '',
      disabled: !settings.customDomainActive,
      note: settings.customDomainActive ? undefined : session().plan === 'pro' ? 'Available once your custom domain is verified.' : 'Part of the Pro plan.',
    },
  ];
  return (
    <section class="card" aria-labelledby="url-style-title">
      <h2 id="url-style-title">Link style</h2>
      <form onSubmit={(e) => void save(e)}>
        <fieldset class="choices">
          <legend>Links of new uploads use</legend>
          {options.map((o) => (
            <label key={o.value} class={o.disabled ? 'choice disabled' : 'choice'}>
              <input type="radio" name="url-format" value={o.value} checked={choice === o.value} disabled={o.disabled} onChange={() => setChoice(o.value)} />
              <span>
                <strong>{o.label}</strong>
                {o.example && <code class="example">{o.example}</code>}
                {o.note && <span class="muted"> {o.note}</span>}
              </span>
            </label>
          ))}
        </fieldset>
        <p class="muted">Links you already have keep working as they are.</p>
        <button type="submit" class="primary" disabled={action.busy !== undefined || choice === settings.format}>
          {action.busy ? 'Saving…' : 'Save link style'}
        </button>
        <Status error={action.error} />
      </form>
    </section>
  );
}
