import { useState } from 'preact/hooks';
import type { DropLink } from '../../../../../shared/contracts/drop-link.contract.js';
import { formatBytes, formatDate } from '../format.js';
import { RESUMABLE_FROM_BYTES } from '../upload/send-tus.js';
import { type AppViewProps, startApp, Waiting } from './mcp-app.js';
import { sendToDropLink } from './send-to-drop-link.js';

// The drop zone: the user drops or picks the file request_file_from_user asked for, right in the chat;
// it goes to that drop link (by tus from 8 MiB), so check_file_handoff answers at once.

type State = { kind: 'ready' } | { kind: 'sending'; name: string; percent: number } | { kind: 'sent'; name: string; size: number } | { kind: 'failed'; error: string };

function DropZone({ app, result }: AppViewProps) {
  const [state, setState] = useState<State>({ kind: 'ready' });
  const [dragging, setDragging] = useState(false);
  if (!result || result.isError || !result.structuredContent) return <Waiting result={result} what="the drop link" />;
  const link = result.structuredContent as DropLink;
  if (link.status !== 'pending' && state.kind !== 'sent') return <p class="muted">{link.status === 'received' ? 'The file has been received.' : 'This drop link has expired.'}</p>;

  const send = (files: FileList | null | undefined) => {
    const file = files?.[0];
    if (!file || state.kind === 'sending') return;
    if (files.length > 1) return setState({ kind: 'failed', error: 'Drop one file only.' });
    setState({ kind: 'sending', name: file.name, percent: 0 });
    sendToDropLink(link.url, file, (loaded, total) => setState({ kind: 'sending', name: file.name, percent: Math.floor((loaded / Math.max(total, 1)) * 100) })).then(
      () => {
        setState({ kind: 'sent', name: file.name, size: file.size });
        // Hosts that take context tell the assistant; check_file_handoff answers with the file either way.
        app.updateModelContext({ content: [{ type: 'text', text: `The user sent ${file.name} through drop link ${link.id}.` }] }).catch(() => undefined);
      },
      (err: Error) => setState({ kind: 'failed', error: err.message }),
    );
  };

  if (state.kind === 'sent') {
    return (
      <main class="mcp-app drop-zone">
        <p class="success" role="status" data-testid="drop-sent">
          {`Sent ${state.name} (${formatBytes(state.size)}).`}
        </p>
      </main>
    );
  }
  return (
    <main class="mcp-app drop-zone">
      <h1>Send a file</h1>
      {link.note && <p>{link.note}</p>}
      <p class="muted">
        {`One file${link.maxSizeBytes ? `, up to ${formatBytes(link.maxSizeBytes)}` : ''}; this link is open until ${formatDate(link.expiresAt)}.`}
        {` Files from ${formatBytes(RESUMABLE_FROM_BYTES)} are sent in parts.`}
      </p>
      <label
        class={dragging ? 'drop-area dragging' : 'drop-area'}
        onDragOver={(e) => (e.preventDefault(), setDragging(true))}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          send(e.dataTransfer?.files);
        }}
      >
        <strong>Drop a file here, or choose one</strong>
        <span class="button primary" aria-hidden="true">
          Choose a file
        </span>
        <input type="file" class="sr-only" disabled={state.kind === 'sending'} onChange={(e) => send(e.currentTarget.files)} data-testid="drop-input" />
      </label>
      {state.kind === 'sending' && <progress max={100} value={state.percent} aria-label={`Sending ${state.name}`} />}
      <p class={state.kind === 'failed' ? 'status error' : 'status'} role="status">
        {state.kind === 'sending' ? `Sending ${state.name}… ${state.percent}%` : state.kind === 'failed' ? state.error : ''}
      </p>
    </main>
  );
}

startApp('drop-zone', DropZone);
