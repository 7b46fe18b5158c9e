import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

// Small pieces every page uses: a modal dialog, a status line read out by screen readers, and
// a hook for loading data with its error in plain words.

/** A modal <dialog>: Escape and the Close button close it, focus returns where it was. */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    ref.current?.showModal();
    return () => opener?.focus();
  }, []);
  return (
    <dialog ref={ref} class="dialog" aria-label={title} onClose={onClose} onCancel={onClose}>
      <header class="dialog-head">
        <h2>{title}</h2>
        <button type="button" class="icon" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </header>
      {children}
    </dialog>
  );
}

/** A polite live region: errors in red, everything else as plain status. */
export function Status({ error, message }: { error?: string | undefined; message?: string | undefined }) {
  return (
    <p class={error ? 'status error' : 'status'} role={error ? 'alert' : 'status'}>
      {error ?? message ?? ''}
    </p>
  );
}

/** Loads with `load` whenever `deps` change; answers the data, the error's words and a reload. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setError(undefined);
    load(controller.signal).then(
      (value) => !controller.signal.aborted && setData(value),
      (err: Error) => !controller.signal.aborted && err.name !== 'AbortError' && setError(err.message),
    );
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, version]);
  return { data, error, reload: () => setVersion((v) => v + 1), setData };
}
