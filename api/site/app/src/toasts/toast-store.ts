// The toasts on screen and their timers: framework-free, so work that outlives a page (a delete
// waiting for its Undo to lapse) can hold a toast too. The app's ToastProvider owns one store.

export type ToastTone = 'success' | 'info' | 'error';
/** How a toast went: its time ran out, the person closed it, or chose its action (Undo, say). */
export type CloseReason = 'timeout' | 'dismissed' | 'action';

export interface ToastInput {
  message: string;
  tone?: ToastTone;
  /** one button beside the message; choosing it closes the toast with 'action' */
  action?: { label: string; run: () => void };
  durationMs?: number;
  onClose?: (reason: CloseReason) => void;
}

export interface Toast extends ToastInput {
  id: number;
  tone: ToastTone;
}

const DURATION_MS: Record<ToastTone, number> = { success: 5000, info: 5000, error: 9000 };
/** A toast with an action (Undo) stays longer: it takes a moment to read and decide. */
const WITH_ACTION_MS = 8000;
// Older toasts give way: a burst of outcomes never covers the page.
const MAX_SHOWN = 4;

interface Timer {
  remaining: number;
  startedAt: number;
  handle: ReturnType<typeof setTimeout> | undefined;
}

export class ToastStore {
  toasts: Toast[] = [];
  /** the regions able to show toasts, the one opened last on top (a dialog's over the page's) */
  private hosts: number[] = [];
  private nextId = 1;
  private readonly timers = new Map<number, Timer>();
  private readonly listeners = new Set<() => void>();

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  show(input: ToastInput): number {
    const id = this.nextId++;
    const tone = input.tone ?? 'success';
    this.toasts = [...this.toasts, { ...input, id, tone }];
    this.timers.set(id, { remaining: input.durationMs ?? (input.action ? WITH_ACTION_MS : DURATION_MS[tone]), startedAt: 0, handle: undefined });
    this.run(id);
    for (const old of this.toasts.slice(0, Math.max(0, this.toasts.length - MAX_SHOWN))) this.close(old.id, 'timeout');
    this.emit();
    return id;
  }

  close(id: number, reason: CloseReason): void {
    const toast = this.toasts.find((t) => t.id === id);
    if (!toast) return;
    clearTimeout(this.timers.get(id)?.handle);
    this.timers.delete(id);
    this.toasts = this.toasts.filter((t) => t.id !== id);
    this.emit();
    toast.onClose?.(reason);
  }

  /** The toast's action, then closing it. */
  act(id: number): void {
    const toast = this.toasts.find((t) => t.id === id);
    if (!toast?.action) return;
    this.close(id, 'action');
    toast.action.run();
  }

  /** While pointed at or focused, a toast stays: its time runs on once left. */
  pause(id: number): void {
    const timer = this.timers.get(id);
    if (!timer?.handle) return;
    clearTimeout(timer.handle);
    timer.handle = undefined;
    timer.remaining -= Date.now() - timer.startedAt;
  }

  resume(id: number): void {
    if (this.timers.get(id)?.handle === undefined) this.run(id);
  }

  /** A region claims the toasts while it is mounted; the latest one shows them. */
  claimHost(): number {
    const host = this.nextId++;
    this.hosts = [...this.hosts, host];
    this.emit();
    return host;
  }

  releaseHost(host: number): void {
    this.hosts = this.hosts.filter((h) => h !== host);
    this.emit();
  }

  isTopHost(host: number): boolean {
    return this.hosts.at(-1) === host;
  }

  private run(id: number): void {
    const timer = this.timers.get(id);
    if (!timer) return;
    timer.startedAt = Date.now();
    timer.handle = setTimeout(() => this.close(id, 'timeout'), Math.max(0, timer.remaining));
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}
