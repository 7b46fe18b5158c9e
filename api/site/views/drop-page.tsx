import { CircleCheck, CircleX, Send, Upload } from 'lucide';
import { formatBytes } from './format-bytes.js';
import { Icon } from './icon.js';
import { Page, type PageFrame } from './page.js';

/** What the drop page shows of its link. */
export interface DropPageInfo {
  token: string;
  username: string;
  note: string | null;
  maxBytes: number;
  expiresAt: Date;
}

/**
 * The page a person without an account drops one file on: a plain multipart form that works without
 * script (the file input is hidden behind the zone, its label); site.tsx adds drag-and-drop and progress.
 */
export function DropPage({ frame, drop }: { frame: PageFrame; drop: DropPageInfo }) {
  return (
    <Page frame={frame}>
      <section class="drop card" aria-labelledby="drop-title">
        <h1 id="drop-title">
          Send a file to <span id="drop-requester">{drop.username}</span>
        </h1>
        {drop.note && (
          <blockquote id="drop-note" class="drop-note">
            {drop.note}
          </blockquote>
        )}
        <p id="drop-limits" class="muted">
          One file, at most <strong data-max-bytes={drop.maxBytes}>{formatBytes(drop.maxBytes)}</strong>. This link works once and expires{' '}
          <time dateTime={drop.expiresAt.toISOString()}>{drop.expiresAt.toUTCString()}</time>.
        </p>
        <form id="drop-form" method="post" enctype="multipart/form-data" action={`/drop/${encodeURIComponent(drop.token)}`} class="drop-form">
          <label id="drop-zone" class="drop-zone" for="drop-file">
            <span class="drop-zone-icon">
              <Icon icon={Upload} size={28} />
            </span>
            <span class="drop-zone-title">Drop a file here</span>
            <span class="drop-zone-or">or</span>
            <span class="button drop-pick">Choose a file</span>
            {/* Shown by CSS once a file is chosen, so a page without script says so too. */}
            <span class="drop-chosen">A file is chosen: press Send.</span>
            <input type="file" name="file" id="drop-file" class="sr-only" required />
          </label>
          <progress id="drop-progress" class="drop-progress" max={100} value={0} aria-label="Sending" hidden></progress>
          <button class="primary drop-send" type="submit">
            <Icon icon={Send} />
            Send
          </button>
          <p class="status drop-status" id="drop-status" role="status" aria-live="polite"></p>
        </form>
        <p id="drop-result" class="drop-result success" hidden></p>
      </section>
    </Page>
  );
}

export type DropResult = { ok: true; originalName: string; size: number; username: string } | { ok: false; title: string; error: string; retry?: string };

/** The answer to a form post (or a link that cannot take a file): what happened, and what to do next. */
export function DropResultPage({ frame, result }: { frame: PageFrame; result: DropResult }) {
  return (
    <Page frame={frame}>
      <section class="drop drop-answer card" aria-labelledby="drop-title">
        <span class={result.ok ? 'drop-answer-icon success' : 'drop-answer-icon error'}>
          <Icon icon={result.ok ? CircleCheck : CircleX} size={40} />
        </span>
        <h1 id="drop-title">{result.ok ? 'File sent' : result.title}</h1>
        {result.ok ? (
          <p id="drop-result" class="success">
            {result.originalName} ({formatBytes(result.size)}) was delivered to {result.username}. You can close this page.
          </p>
        ) : (
          <>
            <p id="drop-result" class="error">
              {result.error}
            </p>
            {result.retry ? (
              <p>
                <a class="button primary" href={result.retry}>
                  Try again
                </a>
              </p>
            ) : (
              <p class="muted">Ask whoever sent you this link for a new one.</p>
            )}
          </>
        )}
      </section>
    </Page>
  );
}
