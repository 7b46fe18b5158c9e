import { html, layout, type SafeHtml } from './html.js';

/** What the drop page shows of its link. */
export interface DropPageInfo {
  token: string;
  username: string;
  note: string | null;
  maxBytes: number;
  expiresAt: Date;
}

export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

const page = (title: string, body: SafeHtml) =>
  layout(title, html`${body}<link rel="stylesheet" href="/assets/drop.css"><script src="/assets/drop.js" defer></script>`);

/**
 * The page a person without an account drops one file on. A plain multipart form that works
 * without script; /assets/drop.js adds drag-and-drop and an upload progress bar.
 */
export function dropPage(info: DropPageInfo): string {
  const action = `/drop/${encodeURIComponent(info.token)}`;
  return page(
    `Send a file to ${info.username}`,
    html`<h1>Send a file to <span id="drop-requester">${info.username}</span></h1>
${info.note ? html`<blockquote id="drop-note">${info.note}</blockquote>` : ''}
<p id="drop-limits">One file, at most <strong data-max-bytes="${info.maxBytes}">${formatBytes(info.maxBytes)}</strong>.
This link works once and expires <time datetime="${info.expiresAt.toISOString()}">${info.expiresAt.toUTCString()}</time>.</p>
<form id="drop-form" method="post" enctype="multipart/form-data" action="${action}">
  <label id="drop-zone" class="drop-zone" for="drop-file">
    <span>Drop a file here or choose one</span>
    <input type="file" name="file" id="drop-file" required>
  </label>
  <button class="primary" type="submit">Send</button>
  <progress id="drop-progress" max="100" value="0" hidden></progress>
  <div class="status" id="drop-status" role="status"></div>
</form>
<p id="drop-result" hidden></p>`,
  );
}

/** The answer to a form post: what happened to the file. */
export function dropResultPage(result: { ok: true; originalName: string; size: number; username: string } | { ok: false; error: string }): string {
  if (result.ok) {
    return page(
      'File sent',
      html`<h1>File sent</h1>
<p id="drop-result" class="success">${result.originalName} (${formatBytes(result.size)}) was delivered to ${result.username}. You can close this page.</p>`,
    );
  }
  return page('File not sent', html`<h1>File not sent</h1>\n<p id="drop-result" class="error">${result.error}</p>`);
}
