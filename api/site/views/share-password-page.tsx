import { Lock, LockOpen } from 'lucide';
import { Icon } from './icon.js';
import { Page, type PageFrame } from './page.js';

/**
 * A share link's password form: a plain form post, no script. It names nothing of what is shared
 * (no file name, no preview) until the right password is given.
 */
export function SharePasswordPage({ frame, action, error }: { frame: PageFrame; action: string; error?: string }) {
  return (
    <Page frame={frame}>
      <section class="share-lock card">
        <span class="share-lock-icon">
          <Icon icon={Lock} size={32} />
        </span>
        <h1>This shared link needs a password</h1>
        <p class="muted">Whoever shared it with you can tell you the password.</p>
        <form id="share-password-form" class="form" method="post" action={action}>
          <div class="field">
            <label for="share-password">Password</label>
            <input
              type="password"
              name="password"
              id="share-password"
              autoComplete="current-password"
              required
              minLength={4}
              maxLength={128}
              {...(error ? { 'aria-invalid': 'true', 'aria-describedby': 'share-password-error' } : {})}
            />
            {error && (
              <p class="error" id="share-password-error" role="alert">
                {error}
              </p>
            )}
          </div>
          <button class="primary" type="submit">
            <Icon icon={LockOpen} />
            Open
          </button>
        </form>
      </section>
    </Page>
  );
}
