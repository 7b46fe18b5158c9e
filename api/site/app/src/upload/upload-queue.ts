import type { UploadResult } from '../types.js';
import { sendForm } from './send-form.js';
import { RESUMABLE_FROM_BYTES, sendTus } from './send-tus.js';
import type { Transfer } from './transfer.js';
import { CancelledError, tooLarge, UploadError } from './upload-errors.js';

type ItemState = 'queued' | 'uploading' | 'paused' | 'done' | 'failed' | 'cancelled';

/** One file of the queue as the page shows it (replaced, never changed, on every step). */
export interface UploadItem {
  id: number;
  file: File;
  expiry: string;
  /** where it is filed once uploaded (see UploaderProps.folderId) */
  folderId: string | null;
  resumable: boolean;
  state: ItemState;
  loaded: number;
  error?: string | undefined;
  retryable: boolean;
  result?: UploadResult | undefined;
  /** a remark on a finished upload, e.g. that it could not be filed into the folder */
  note?: string | undefined;
}

interface QueueHooks {
  /** the plan's largest file, when known: bigger ones are refused before sending */
  maxBytes(): number | undefined;
  /** after each upload (e.g. filing it into a folder); answers a remark to show, if any */
  afterUpload(result: UploadResult, item: UploadItem): Promise<string | undefined>;
}

const CONCURRENT = 3;

/**
 * The files being uploaded: at most three at a time, each with its progress, and Cancel, Retry,
 * Pause and Resume (resumable ones) per file. Framework-free; the uploader subscribes to it.
 */
export class UploadQueue {
  items: UploadItem[] = [];
  /** the upload that finished last, whose link the page marks as the result */
  latestDone: number | undefined;
  private nextId = 1;
  private readonly transfers = new Map<number, Transfer>();
  private readonly resumeUrls = new Map<number, string>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly hooks: QueueHooks) {}

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  add(files: File[], { expiry, folderId }: { expiry: string; folderId: string | null }): void {
    const max = this.hooks.maxBytes();
    for (const file of files) {
      const refused = max !== undefined && file.size > max ? tooLarge(file.size, max) : undefined;
      this.items = [
        ...this.items,
        {
          id: this.nextId++,
          file,
          expiry,
          folderId,
          resumable: file.size >= RESUMABLE_FROM_BYTES,
          state: refused ? 'failed' : 'queued',
          loaded: 0,
          error: refused?.message,
          retryable: false,
        },
      ];
    }
    this.emit();
    this.pump();
  }

  cancel(id: number): void {
    const item = this.find(id);
    if (item?.state === 'queued') this.set(id, { state: 'cancelled' });
    else this.transfers.get(id)?.cancel();
  }

  pause(id: number): void {
    const transfer = this.transfers.get(id);
    if (!transfer?.pause || this.find(id)?.state !== 'uploading') return;
    transfer.pause();
    this.set(id, { state: 'paused' });
    this.pump();
  }

  resume(id: number): void {
    const transfer = this.transfers.get(id);
    if (!transfer?.resume || this.find(id)?.state !== 'paused') return;
    transfer.resume();
    this.set(id, { state: 'uploading' });
  }

  retry(id: number): void {
    const item = this.find(id);
    if (item?.state !== 'failed' && item?.state !== 'cancelled') return;
    // A cancelled resumable upload was ended on the server; a failed one goes on where it stopped.
    if (item.state === 'cancelled') this.resumeUrls.delete(id);
    const goesOn = item.resumable && this.resumeUrls.has(id);
    this.set(id, { state: 'queued', error: undefined, loaded: goesOn ? item.loaded : 0 });
    this.pump();
  }

  dismiss(id: number): void {
    this.transfers.get(id)?.cancel();
    this.items = this.items.filter((item) => item.id !== id);
    this.emit();
    this.pump();
  }

  /** Removes the finished, failed and cancelled ones from the list. */
  clearFinished(): void {
    this.items = this.items.filter((item) => item.state === 'queued' || item.state === 'uploading' || item.state === 'paused');
    this.emit();
  }

  private pump(): void {
    let running = this.items.filter((item) => item.state === 'uploading').length;
    for (const item of this.items) {
      if (running >= CONCURRENT) break;
      if (item.state !== 'queued') continue;
      running++;
      this.start(item);
    }
  }

  private start(item: UploadItem): void {
    const options = { expiry: item.expiry, onProgress: (loaded: number) => this.set(item.id, { loaded }) };
    const transfer = item.resumable ? sendTus(item.file, options, this.resumeUrls.get(item.id) ?? null) : sendForm(item.file, options);
    this.transfers.set(item.id, transfer);
    this.set(item.id, { state: 'uploading' });
    transfer.done.then(
      async (result) => {
        this.transfers.delete(item.id);
        const note = await this.hooks.afterUpload(result, item).catch((err: Error) => err.message);
        this.latestDone = item.id;
        this.set(item.id, { state: 'done', loaded: item.file.size, result, note });
        this.pump();
      },
      (err: Error) => {
        const resumeUrl = transfer.resumeUrl?.();
        this.transfers.delete(item.id);
        if (resumeUrl) this.resumeUrls.set(item.id, resumeUrl);
        if (err instanceof CancelledError) this.set(item.id, { state: 'cancelled' });
        else this.set(item.id, { state: 'failed', error: err.message, retryable: err instanceof UploadError ? err.retryable : true });
        this.pump();
      },
    );
  }

  private find(id: number): UploadItem | undefined {
    return this.items.find((item) => item.id === id);
  }

  private set(id: number, patch: Partial<UploadItem>): void {
    if (!this.find(id)) return;
    this.items = this.items.map((item) => (item.id === id ? { ...item, ...patch } : item));
    this.emit();
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}
