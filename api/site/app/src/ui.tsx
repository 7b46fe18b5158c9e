import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Copy, X } from 'lucide';
import { Icon } from '../../views/icon.js';
import { copyText } from './format.js';
import { ToastRegion, useToasts } from './toasts/toasts.js';
import type { Folder } from './types.js';

// Small pieces every page uses: dialogs, a form's error line read out by screen readers, copy
// buttons, folder choices, and hooks for loading data and for running an action (its outcome a toast).

/**
 * A modal <dialog>, named by its heading: Escape and the Close button close it, focus returns where
 * it was. It shows the toasts while open, as the page behind it is inert.
 */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    ref.current?.showModal();
    return () => opener?.focus();
  }, []);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby={titleId} onClose={onClose} onCancel={onClose}>
      <header class="dialog-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" class="ghost icon-only" aria-label="Close" onClick={onClose}>
          <Icon icon={X} />
        </button>
      </header>
      {children}
      <ToastRegion />
    </dialog>
  );
}

/** Where a form's error appears, read out at once; outcomes that went well are toasts. */
export function Status({ error }: { error?: string | undefined }) {
  return (
    <p class={error ? 'status error' : 'status'} role="alert">
      {error ?? ''}
    </p>
  );
}

/**
 * Loads with `load` on mount and whenever `key` (what is loaded: a file's name, say) changes;
 * answers the data, the error's words and a reload. The latest `load` runs, so it may be inline.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, key = '') {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [version, setVersion] = useState(0);
  const loadRef = useRef(load);
  useLayoutEffect(() => {
    loadRef.current = load;
  });
  useEffect(() => {
    const controller = new AbortController();
    setError(undefined);
    loadRef.current(controller.signal).then(
      (value) => !controller.signal.aborted && setData(value),
      (err: Error) => !controller.signal.aborted && err.name !== 'AbortError' && setError(err.message),
    );
    return () => controller.abort();
  }, [key, version]);
  // Stable, so effects may depend on it (a notification that calls for a reload, say).
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { data, error, reload, setData };
}

/**
 * One action at a time: `run(name, work)` marks `busy` with the name while `work` goes, then shows
 * the words it answers in a toast, or its error's in place (beside the form that failed).
 */
export function useAction<Name extends string>() {
  const toasts = useToasts();
  const [busy, setBusy] = useState<Name | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const run = async (name: Name, work: () => Promise<string | void>) => {
    setBusy(name);
    setError(undefined);
    try {
      const done = await work();
      if (done) toasts.show({ message: done });
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(undefined);
    }
  };
  return { busy, error, setError, run };
}

/** Asks before something that cannot be undone; the confirming button shows the work in progress. */
export function ConfirmDialog({
  title,
  confirmLabel,
  danger = false,
  onConfirm,
  onClose,
  children,
}: {
  title: string;
  confirmLabel: string;
  danger?: boolean;
  /** rejects with the error to show; the dialog closes when it resolves */
  onConfirm: () => Promise<void>;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const action = useAction<'confirm'>();
  const confirm = () =>
    action.run('confirm', async () => {
      await onConfirm();
      onClose();
    });
  return (
    <Dialog title={title} onClose={onClose}>
      <div>{children}</div>
      <Status error={action.error} />
      <div class="row dialog-actions">
        <button type="button" class={danger ? 'danger' : 'primary'} disabled={action.busy !== undefined} onClick={() => void confirm()}>
          {action.busy ? 'Working…' : confirmLabel}
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

/** Copies `text` (or what `text()` answers) and says so in words; `what` names it ("drop link"). */
export function CopyButton({ text, label = 'Copy', what }: { text: string | (() => Promise<string>); label?: string; what: string }) {
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      const value = typeof text === 'string' ? text : await text();
      setSaid((await copyText(value)) ? `Copied the ${what}.` : `Could not copy: select the ${what} and copy it by hand.`);
    } catch (err) {
      setSaid((err as Error).message);
    }
  };
  return (
    <>
      <button type="button" onClick={() => void copy()} aria-label={label === 'Copy' ? `Copy ${what}` : undefined}>
        <Icon icon={Copy} size={16} />
        {label}
      </button>
      <span class="copy-said" role="status">
        {said}
      </span>
    </>
  );
}

/**
 * A secret shown this once (a new folder key, access token or signing secret): `lead` says what it is,
 * the value takes the focus so a screen reader reads it, and it can be copied.
 */
export function SecretOnce({ lead, value, what, testId }: { lead: ComponentChildren; value: string; what: string; testId: string }) {
  const shown = useRef<HTMLElement>(null);
  useEffect(() => shown.current?.focus(), [value]);
  return (
    <div class="key-once" role="status">
      <p>
        <strong>{lead}</strong> it is shown only this once.
      </p>
      <div class="row">
        <code ref={shown} tabIndex={-1} class="api-key" data-testid={testId}>
          {value}
        </code>
        <CopyButton text={value} what={what} />
      </div>
    </div>
  );
}

/** A confirmation in place (inside a dialog, say): the question, then the action or keeping things. */
export function InlineConfirm({
  question,
  confirmLabel,
  keepLabel,
  busy,
  onConfirm,
  onKeep,
}: {
  question: string;
  confirmLabel: string;
  keepLabel: string;
  busy: boolean;
  onConfirm: () => void;
  onKeep: () => void;
}) {
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => first.current?.focus(), []);
  return (
    <div class="row confirm-inline" role="group" aria-label={question}>
      <span>{question}</span>
      <button ref={first} type="button" class="danger" disabled={busy} onClick={onConfirm}>
        {confirmLabel}
      </button>
      <button type="button" onClick={onKeep}>
        {keepLabel}
      </button>
    </div>
  );
}

/** A labelled <select> of fixed choices (a width, an image format), its label always shown above it. */
export function SelectField<T extends string | number>({ label, value, choices, onChange }: { label: string; value: T; choices: readonly { value: T; label: string }[]; onChange: (value: T) => void }) {
  return (
    <label>
      <span>{label}</span>
      <select value={String(value)} onChange={(e) => onChange(choices[e.currentTarget.selectedIndex]!.value)}>
        {choices.map((c) => (
          <option key={c.value} value={String(c.value)}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A labelled <select> of durations in seconds: how long a link stays open, say. */
export function DurationSelect({ label, value, choices, onChange }: { label: string; value: number; choices: readonly { seconds: number; label: string }[]; onChange: (seconds: number) => void }) {
  return <SelectField label={label} value={value} choices={choices.map((c) => ({ value: c.seconds, label: c.label }))} onChange={onChange} />;
}

/** The options of a folder <select>, one a folder, after the caller's own first choice (the root, say). */
export function FolderOptions({ folders }: { folders: Folder[] }) {
  return (
    <>
      {folders.map((folder) => (
        <option key={folder.id} value={folder.id}>
          {folder.name}
        </option>
      ))}
    </>
  );
}
