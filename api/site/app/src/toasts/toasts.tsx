import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { CircleAlert, CircleCheck, Info, X } from 'lucide';
import { Icon } from '../../../views/icon.js';
import { ToastStore, type ToastTone } from './toast-store.js';
import './toasts.css';

const ToastContext = createContext<ToastStore | null>(null);

const TONE_ICON = { success: CircleCheck, info: Info, error: CircleAlert } satisfies Record<ToastTone, unknown>;

/** One toast store for the app, and the page's region that shows them. */
export function ToastProvider({ children }: { children: ComponentChildren }) {
  const store = useMemo(() => new ToastStore(), []);
  return (
    <ToastContext.Provider value={store}>
      {children}
      <ToastRegion />
    </ToastContext.Provider>
  );
}

/** The app's toasts: `show` one for an action's outcome. */
export function useToasts(): ToastStore {
  const store = useContext(ToastContext);
  if (!store) throw new Error('useToasts needs a ToastProvider');
  return store;
}

/**
 * Where toasts appear, read out politely. A modal dialog makes the page behind it inert, so a
 * dialog has a region of its own: the one mounted last shows the toasts, and its buttons work.
 */
export function ToastRegion() {
  const store = useContext(ToastContext);
  const [host, setHost] = useState<number | undefined>(undefined);
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!store) return;
    const stop = store.subscribe(() => setTick((n) => n + 1));
    const claimed = store.claimHost();
    setHost(claimed);
    return () => {
      stop();
      store.releaseHost(claimed);
    };
  }, [store]);
  if (!store) return null;
  const shown = host !== undefined && store.isTopHost(host) ? store.toasts : [];
  return (
    <div class="toasts" role="status" aria-live="polite">
      {shown.map((toast) => (
        <div
          key={toast.id}
          class={`toast toast-${toast.tone}`}
          onMouseEnter={() => store.pause(toast.id)}
          onMouseLeave={() => store.resume(toast.id)}
          onFocusIn={() => store.pause(toast.id)}
          onFocusOut={() => store.resume(toast.id)}
        >
          <Icon icon={TONE_ICON[toast.tone]} />
          <p class="toast-message">{toast.message}</p>
          {toast.action && (
            <button type="button" class="small toast-action" onClick={() => store.act(toast.id)}>
              {toast.action.label}
            </button>
          )}
          <button type="button" class="ghost small icon-only toast-close" aria-label="Dismiss message" onClick={() => store.close(toast.id, 'dismissed')}>
            <Icon icon={X} size={16} />
          </button>
        </div>
      ))}
    </div>
  );
}
