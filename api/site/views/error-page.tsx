import { FileQuestion, Hourglass, ShieldAlert, TriangleAlert } from 'lucide';
import { Icon } from './icon.js';
import { Page, type PageFrame } from './page.js';

const HEADINGS: Record<number, { title: string; icon: typeof FileQuestion; hint: string }> = {
  404: { title: 'Nothing here', icon: FileQuestion, hint: 'The link may be mistyped, or what it pointed to was deleted or made private.' },
  410: { title: 'This link has ended', icon: Hourglass, hint: 'It expired or was opened as many times as it allows. Ask whoever shared it for a new one.' },
  451: { title: 'Not available', icon: ShieldAlert, hint: 'This file was withheld after a content check.' },
};

export function errorTitle(status: number): string {
  return HEADINGS[status]?.title ?? (status >= 500 ? 'Something went wrong' : 'That did not work');
}

/** The page a browser gets where an API client gets `{success: false, error}`: what happened, and a way on. */
export function ErrorPage({ frame, status, message }: { frame: PageFrame; status: number; message: string }) {
  const known = HEADINGS[status];
  const hint = known?.hint ?? (status >= 500 ? 'This is our fault. Try again in a moment.' : null);
  return (
    <Page frame={frame}>
      <section class="error-page card" aria-labelledby="error-title">
        <span class="error-icon">
          <Icon icon={known?.icon ?? TriangleAlert} size={40} />
        </span>
        <p class="error-status">Error {status}</p>
        <h1 id="error-title">{errorTitle(status)}</h1>
        <p class="error-message">{message}</p>
        {hint && <p class="muted">{hint}</p>}
        <p class="row error-ways">
          <a class="button primary" href={`${frame.site}/`}>
            Go to the home page
          </a>
          {frame.account && !frame.site && (
            <a class="button" href="/dashboard">
              Open your files
            </a>
          )}
        </p>
      </section>
    </Page>
  );
}
