import type { ComponentChildren } from 'preact';
import { LogIn, UserPlus } from 'lucide';
import { Icon } from './icon.js';
import { Page, type PageFrame } from './page.js';

/**
 * Sign-in and registration: labelled fields in a card. site.tsx sends them (it solves the captcha
 * first, which needs script); `next` is where a success leads: the dashboard, or the page that sent
 * the visitor here (a consent step, a drop link).
 */
export function SignInPage({ frame, next }: { frame: PageFrame; next: string }) {
  const register = next === '/dashboard' ? '/register' : `/register?next=${encodeURIComponent(next)}`;
  return (
    <Page frame={frame}>
      <section class="auth card" aria-labelledby="auth-title">
        <h1 id="auth-title">Sign in</h1>
        <form id="login-form" class="form" data-next={next} data-auth="/api/auth/login">
          <Field id="username" label="Username">
            <input id="username" name="username" type="text" autoComplete="username" required />
          </Field>
          <Field id="password" label="Password">
            <input id="password" name="password" type="password" autoComplete="current-password" required />
          </Field>
          <button class="primary" type="submit">
            <Icon icon={LogIn} />
            Sign in
          </button>
          <NeedsScript />
          <p class="status" role="status" aria-live="polite"></p>
        </form>
        <p class="muted">
          No account yet? <a href={register}>Create one</a>
        </p>
      </section>
    </Page>
  );
}

export function RegisterPage({ frame, next }: { frame: PageFrame; next: string }) {
  return (
    <Page frame={frame}>
      <section class="auth card" aria-labelledby="auth-title">
        <h1 id="auth-title">Create an account</h1>
        <form id="register-form" class="form" data-next={next} data-auth="/api/auth/register">
          <Field id="username" label="Username" hint="3 to 32 letters, digits or hyphens">
            <input id="username" name="username" type="text" autoComplete="username" required aria-describedby="username-hint" />
          </Field>
          <Field id="email" label="Email">
            <input id="email" name="email" type="email" autoComplete="email" required />
          </Field>
          <Field id="password" label="Password" hint="At least 8 characters">
            <input id="password" name="password" type="password" autoComplete="new-password" required aria-describedby="password-hint" />
          </Field>
          <button class="primary" type="submit">
            <Icon icon={UserPlus} />
            Create account
          </button>
          <NeedsScript />
          <p class="status" role="status" aria-live="polite"></p>
        </form>
        <p class="muted">
          Already have one? <a href={next === '/dashboard' ? '/login' : `/login?next=${encodeURIComponent(next)}`}>Sign in</a>
        </p>
      </section>
    </Page>
  );
}

/** A labelled field: `children` is its control, whose id is `id`; `hint` is tied to it by `${id}-hint`. */
function Field({ id, label, hint, children }: { id: string; label: string; hint?: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint && (
        <small id={`${id}-hint`} class="muted">
          {hint}
        </small>
      )}
    </div>
  );
}

function NeedsScript() {
  return (
    <noscript>
      <p class="notice">Signing in checks that you are human with a small puzzle your browser solves: turn on JavaScript for this site.</p>
    </noscript>
  );
}
