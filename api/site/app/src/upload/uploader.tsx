import { ChevronDown, ChevronUp, CloudUpload, Upload } from 'lucide';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Icon } from '../../../views/icon.js';
import { api } from '../api.js';
import { FilePicker } from '../file-picker.js';
import { moveFiles } from '../files/file-api.js';
import { plural } from '../format.js';
import type { DashboardUser, UploadConfig, UploadResult } from '../types.js';
import { useLoad } from '../ui.js';
import { filesOf, namedForPaste } from './dropped-files.js';
import { UploadQueue } from './upload-queue.js';
import { ResultLink, UploadRow } from './upload-row.js';
import './uploader.css';

export interface UploaderProps {
  /** where finished uploads are filed: a folder's id, `root`, or null to leave them where the account's uploads land */
  folderId: string | null;
  /** the uploader's plan (null: an anonymous visitor): files over its ceiling are refused before sending */
  plan?: DashboardUser['plan'] | null | undefined;
  /** each finished upload, once filed */
  onUploaded?: ((result: UploadResult) => void) | undefined;
  /** folds finished uploads into one line, to open on demand (where the files show elsewhere too) */
  collapseDone?: boolean;
}

const NEVER = [{ value: '', label: 'Never' }];

// One queue per page, which outlives the uploader: from the files to a file's page and back, the
// uploads go on and are still in view. It reads the mounted uploader's props and settings here.
const mounted: { props?: UploaderProps; config?: UploadConfig | undefined } = {};
let pageQueue: UploadQueue | undefined;

function queueOfPage(): UploadQueue {
  pageQueue ??= new UploadQueue({
    maxBytes() {
      const { props, config } = mounted;
      if (!props || !config || props.plan === undefined) return undefined;
      return props.plan === null ? config.maxFileSize.anonymous : config.maxFileSize[props.plan];
    },
    async afterUpload(result, item) {
      let note: string | undefined;
      if (item.folderId) {
        const moved = await moveFiles([result.filename], item.folderId).catch((err: Error) => ({ errors: [{ error: err.message }] }));
        if (moved.errors[0]) note = `Uploaded, but not filed into the folder: ${moved.errors[0].error}`;
      }
      mounted.props?.onUploaded?.(result);
      return note;
    },
  });
  return pageQueue;
}

/**
 * Uploads many files at once, by drag and drop anywhere on the page, by pasting, or with the file
 * picker; a progress bar per file, Cancel and Retry, and Pause and Resume for big (resumable) ones.
 * On the dashboard as on the public page; the browser's cookie says who uploads, never a key.
 */
export function Uploader(props: UploaderProps) {
  const config = useLoad((signal) => api<UploadConfig>('/upload/config', { signal }));
  const [expiry, setExpiry] = useState('');
  const [dragging, setDragging] = useState(false);
  const [showDone, setShowDone] = useState(false);
  const queue = queueOfPage();
  const [, setTick] = useState(0);
  useEffect(() => queue.subscribe(() => setTick((n) => n + 1)), [queue]);
  // What files dropped or pasted from now on get.
  const targetRef = useRef({ expiry, folderId: props.folderId });
  // After each render, before any event can come: the queue and the handlers see this render's values.
  useLayoutEffect(() => {
    mounted.props = props;
    mounted.config = config.data;
    targetRef.current = { expiry, folderId: props.folderId };
  });

  const active = queue.items.some((item) => item.state === 'uploading' || item.state === 'paused' || item.state === 'queued');
  // Closing the tab would end the uploads: the browser asks first.
  useEffect(() => {
    if (!active) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    addEventListener('beforeunload', warn);
    return () => removeEventListener('beforeunload', warn);
  }, [active]);

  // Drops anywhere on the page and pastes (Ctrl+V) of files land here.
  useEffect(() => {
    let depth = 0;
    // A file input (the uploader's own, or Replace in a file's actions) takes what is dropped on it.
    const onFileInput = (event: Event) => event.target instanceof HTMLInputElement && event.target.type === 'file';
    const hasFiles = (event: DragEvent) => (event.dataTransfer?.types.includes('Files') ?? false) && !onFileInput(event);
    const enter = (event: DragEvent) => {
      if (!hasFiles(event)) return;
      depth++;
      setDragging(true);
    };
    const leave = (event: DragEvent) => {
      if (!hasFiles(event)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setDragging(false);
    };
    const over = (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
    };
    const drop = (event: DragEvent) => {
      depth = 0;
      setDragging(false);
      if (onFileInput(event)) return;
      const files = filesOf(event.dataTransfer);
      if (files.length === 0) return;
      event.preventDefault();
      queue.add(files, targetRef.current);
    };
    const paste = (event: ClipboardEvent) => {
      const files = filesOf(event.clipboardData).map(namedForPaste);
      if (files.length === 0) return;
      event.preventDefault();
      queue.add(files, targetRef.current);
    };
    document.addEventListener('dragenter', enter);
    document.addEventListener('dragleave', leave);
    document.addEventListener('dragover', over);
    document.addEventListener('drop', drop);
    document.addEventListener('paste', paste);
    return () => {
      document.removeEventListener('dragenter', enter);
      document.removeEventListener('dragleave', leave);
      document.removeEventListener('dragover', over);
      document.removeEventListener('drop', drop);
      document.removeEventListener('paste', paste);
    };
  }, [queue]);

  const items = queue.items;
  const done = items.filter((item) => item.state === 'done');
  const failed = items.filter((item) => item.state === 'failed').length;
  const going = items.filter((item) => item.state === 'queued' || item.state === 'uploading' || item.state === 'paused').length;
  const options = config.data?.expiryOptions ?? NEVER;
  // Finished cards fold into one line (the dashboard's grid shows the files themselves), unless opened.
  const folded = props.collapseDone && !showDone;
  const shown = folded ? items.filter((item) => item.state !== 'done') : items;
  const latest = done.find((item) => item.id === queue.latestDone);
  const summary = props.collapseDone
    ? [done.length && `${plural(done.length, 'file')} uploaded`, failed && `${failed} failed`, going && `${going} in progress`].filter(Boolean).join(', ') || 'Nothing uploaded'
    : `${done.length} of ${items.length} uploaded${failed ? `, ${failed} failed` : ''}`;

  return (
    <section class={dragging ? 'uploader dragging' : 'uploader'} aria-label="Upload files">
      <div class="dropzone">
        <span class="dropzone-icon">
          <Icon icon={CloudUpload} size={28} />
        </span>
        <p class="drop-hint">
          <strong>Drop files anywhere on this page</strong>
          <span class="muted"> or paste them with Ctrl+V</span>
        </p>
        <div class="upload-controls">
          <FilePicker id="file" label="Choose files" icon={Upload} multiple primary onFiles={(files) => queue.add(files, targetRef.current)} />
          <span class="field expiry">
            <label for="expiry">Expires</label>
            <select id="expiry" value={expiry} onChange={(event) => setExpiry(event.currentTarget.value)}>
              {options.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.value === '' ? option.label : `After ${option.label}`}
                </option>
              ))}
            </select>
          </span>
        </div>
        {config.error && <p class="status error">{`The upload settings did not load (${config.error}); files never expire.`}</p>}
      </div>
      {items.length > 0 && (
        <>
          <div class="upload-summary">
            <p role="status">{`${summary}.`}</p>
            {folded && latest && <ResultLink item={latest} latest />}
            <span class="upload-summary-buttons">
              {props.collapseDone && done.length > 0 && (
                <button type="button" class="small ghost" aria-expanded={showDone} onClick={() => setShowDone(!showDone)}>
                  <Icon icon={showDone ? ChevronUp : ChevronDown} size={16} />
                  {showDone ? 'Hide uploaded' : 'Show uploaded'}
                </button>
              )}
              {done.length + failed > 0 && (
                <button type="button" class="small ghost" onClick={() => queue.clearFinished()}>
                  Clear finished
                </button>
              )}
            </span>
          </div>
          {shown.length > 0 && (
            <ul class="upload-list" aria-label="Uploads">
              {shown.map((item) => (
                <UploadRow key={item.id} item={item} queue={queue} latest={item.id === queue.latestDone} />
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
