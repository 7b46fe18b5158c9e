import type { ComponentChildren } from 'preact';
import { Images, LogOut, Moon, Sun } from 'lucide';
import { Icon } from './icon.js';

/**
 * Two forms that work without script (the server sets the cookie and sends the visitor back); with
 * script, site.tsx and the app switch in place. CSS shows the one that leads away from the theme in use.
 */
const SWITCHES = [
  { theme: 'dark', label: 'Use the dark theme', title: 'Dark theme', icon: Moon },
  { theme: 'light', label: 'Use the light theme', title: 'Light theme', icon: Sun },
] as const;

export function ThemeSwitch({ back }: { back: string }) {
  return (
    <>
      {SWITCHES.map((to) => (
        <form key={to.theme} method="post" action="/theme" class={`theme-switch theme-to-${to.theme}`} data-theme-switch>
          <input type="hidden" name="theme" value={to.theme} />
          <input type="hidden" name="back" value={back} />
          <button type="submit" class="ghost icon-only" aria-label={to.label} title={to.title}>
            <Icon icon={to.icon} />
          </button>
        </form>
      ))}
    </>
  );
}

/**
 * Every page's header, the dashboard's too: the brand, then `nav` (the dashboard's sections), then
 * `extra` (the notification bell), the theme switch and the account's way in or out.
 */
export function SiteHeader({
  account,
  back,
  nav,
  extra,
}: {
  account: { username: string } | null;
  /** the path the theme switch returns to without script */
  back: string;
  nav?: ComponentChildren;
  extra?: ComponentChildren;
}) {
  return (
    <header class="site-head">
      <a href={account ? '/dashboard' : '/'} class="brand">
        <span class="brand-mark">
          <Icon icon={Images} size={20} />
        </span>
        <span class="brand-name">Hosted Files</span>
      </a>
      {nav}
      <div class="head-actions">
        {extra}
        <ThemeSwitch back={back} />
        {account ? (
          <form method="post" action="/logout" class="sign-out">
            <button type="submit" class="ghost" title={`Signed in as ${account.username}`}>
              <Icon icon={LogOut} />
              <span>Sign out</span>
            </button>
          </form>
        ) : (
          <nav aria-label="Account" class="head-links">
            <a href="/login">Sign in</a>
            <a href="/register" class="button primary">
              Create account
            </a>
          </nav>
        )}
      </div>
    </header>
  );
}
