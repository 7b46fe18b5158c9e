import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { formatDate, plural } from '../format.js';
import type { ShareLink } from '../types.js';
import { CopyButton, DurationSelect, InlineConfirm, Status, useAction, useLoad } from '../ui.js';
import './share-links.css';

/** What is shared: one file (by its name) or one folder. */
export type ShareTarget = { filename: string } | { folderId: string };

// How long a link works: the API takes 60 seconds to a year, or no limit.
const EXPIRY_CHOICES = [
  { seconds: 0, label: 'Never expires' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 86400, label: '1 day' },
  { seconds: 7 * 86400, label: '7 days' },
  { seconds: 30 * 86400, label: '30 days' },
  { seconds: 365 * 86400, label: '1 year' },
];

const isFor = (target: ShareTarget) => (link: ShareLink) => ('filename' in target ? link.filename === target.filename : link.folderId === target.folderId);

function limitsOf(link: ShareLink): string {
  const views = link.maxViews === null ? plural(link.views, 'view') : `${link.views} of ${plural(link.maxViews, 'view')}`;
  const expired = link.expiresAt !== null && Date.parse(link.expiresAt) <= Date.now();
  const expiry = link.expiresAt === null ? 'never expires' : `${expired ? 'expired' : 'expires'} ${formatDate(link.expiresAt)}`;
  return `${views} · ${expiry}${link.hasPassword ? ' · password' : ''}`;
}

/**
 * Share links of a file or a folder: make one (expiry, view limit, password), copy it, see its views,
 * revoke it. Private files are shared too, and a revoked link stops working at once.
 */
export function ShareLinksPanel({ target, name }: { target: ShareTarget; name: string }) {
  const key = 'filename' in target ? `file:${target.filename}` : `folder:${target.folderId}`;
  const { data: links, error, setData } = useLoad((signal) => api<{ data: ShareLink[] }>('/user/share-links', { signal }).then((r) => r.data.filter(isFor(target))), key);
  const [expiresIn, setExpiresIn] = useState(0);
  const [maxViews, setMaxViews] = useState('');
  const [password, setPassword] = useState('');
  const [revoking, setRevoking] = useState<string | undefined>(undefined);
  const action = useAction<'create' | 'revoke'>();

  const create = (event: Event) => {
    event.preventDefault();
    const views = maxViews.trim() === '' ? undefined : Number(maxViews);
    if (views !== undefined && !(Number.isInteger(views) && views >= 1)) return action.setError('The view limit must be a whole number from 1, or left empty.');
    return action.run('create', async () => {
      const body = { ...target, ...(expiresIn ? { expiresIn } : {}), ...(views ? { maxViews: views } : {}), ...(password ? { password } : {}) };
      const { data } = await api<{ data: ShareLink }>('/user/share-links', { method: 'POST', body });
      setPassword('');
      setData((current) => [data, ...(current ?? [])]);
      return 'Share link made: copy it below.';
    });
  };
  const revoke = (id: string) =>
    action.run('revoke', async () => {
      await api(`/user/share-links/${encodeURIComponent(id)}`, { method: 'DELETE' });
      setRevoking(undefined);
      setData((current) => current?.filter((link) => link.id !== id));
      return 'Share link revoked: it no longer works.';
    });

  return (
    <section class="share-links" aria-labelledby="share-links-title">
      <h3 id="share-links-title">Share links</h3>
      <p class="muted">A link to {name} for anyone you give it to, private files included, with the limits you choose.</p>
      <form onSubmit={(e) => void create(e)} aria-label="New share link">
        <div class="form-grid">
          <DurationSelect label="Expires" value={expiresIn} choices={EXPIRY_CHOICES} onChange={setExpiresIn} />
          <label>
            <span>View limit (empty: none)</span>
            <input type="number" min="1" max="1000000" step="1" inputMode="numeric" value={maxViews} onInput={(e) => setMaxViews(e.currentTarget.value)} />
          </label>
          <label>
            <span>Password (optional, 4 or more characters)</span>
            <input type="password" autoComplete="new-password" minLength={4} maxLength={128} value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
          </label>
        </div>
        <button type="submit" class="primary" disabled={action.busy !== undefined}>
          {action.busy === 'create' ? 'Making…' : 'Make share link'}
        </button>
      </form>
      {links && links.length > 0 && (
        <ul class="share-link-list">
          {links.map((link) => (
            <li key={link.id} class="row link-row">
              <label class="sr-only" for={`share-${link.id}`}>
                Share link
              </label>
              <input id={`share-${link.id}`} class="wide" readOnly value={link.url} onFocus={(e) => e.currentTarget.select()} />
              <CopyButton text={link.url} what="share link" />
              <span class="muted" data-testid="share-link-limits">
                {limitsOf(link)}
              </span>
              {revoking === link.id ? (
                <InlineConfirm question="Revoke this link? It stops working at once." confirmLabel="Revoke" keepLabel="Keep" busy={action.busy !== undefined} onConfirm={() => void revoke(link.id)} onKeep={() => setRevoking(undefined)} />
              ) : (
                <button type="button" class="danger" onClick={() => setRevoking(link.id)}>
                  Revoke…
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {links?.length === 0 && <p class="muted">No share links yet.</p>}
      <Status error={error ?? action.error} />
    </section>
  );
}
