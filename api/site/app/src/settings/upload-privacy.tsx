import { api } from '../api.js';
import type { Settings } from '../types.js';
import { Status, useAction } from '../ui.js';

type Key = keyof Settings;

const TOGGLES: { key: Key; label: string; effect: string }[] = [
  {
    key: 'stripMetadata',
    label: 'Remove location and camera data from uploads',
    effect: 'Photos and videos lose their GPS position, camera, serial numbers and editing history before they are stored; the picture itself and its orientation are kept. Files already uploaded stay as they are.',
  },
  {
    key: 'privateByDefault',
    label: 'Make new uploads private',
    effect: 'New uploads answer only signed links: the upload gives you a link that works for 7 days, and you can share the file with a share link or make it public from its page. Files already uploaded keep their setting.',
  },
];

/** The account's upload privacy: each toggle saves at once (PATCH /api/user/settings). */
export function UploadPrivacy({ settings, onSaved }: { settings: Settings; onSaved: (settings: Settings) => void }) {
  const action = useAction<Key>();
  const toggle = (key: Key, value: boolean) =>
    action.run(key, async () => {
      const { data } = await api<{ data: Settings }>('/user/settings', { method: 'PATCH', body: { [key]: value } });
      onSaved(data);
      return 'Saved.';
    });
  return (
    <section class="card" aria-labelledby="upload-privacy-title">
      <h2 id="upload-privacy-title">Upload privacy</h2>
      {TOGGLES.map((t) => (
        <div key={t.key} class="choice">
          <input
            type="checkbox"
            id={`setting-${t.key}`}
            aria-describedby={`setting-${t.key}-effect`}
            checked={settings[t.key]}
            disabled={action.busy !== undefined}
            onChange={(e) => void toggle(t.key, e.currentTarget.checked)}
          />
          <span>
            <label for={`setting-${t.key}`}>
              <strong>{t.label}</strong>
            </label>
            <span id={`setting-${t.key}-effect`} class="muted"> {t.effect}</span>
          </span>
        </div>
      ))}
      <Status error={action.error} />
    </section>
  );
}
