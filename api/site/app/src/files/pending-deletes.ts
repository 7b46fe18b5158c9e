import type { FileRecord } from '../types.js';
import { deleteFiles } from './file-api.js';
import { announceChanges } from './library-changes.js';

// A DELETE cannot be taken back (the API has no restore), so a delete waits while its toast offers
// Undo: the files are hidden at once and the requests go when the toast closes, or the page is left.

class PendingDeletes {
  private readonly files = new Map<string, FileRecord>();
  private readonly listeners = new Set<() => void>();

  constructor() {
    // keepalive: the requests outlive the page; nothing waits for their answers.
    addEventListener('pagehide', () => {
      for (const filename of this.files.keys()) void fetch(`/api/user/images/${encodeURIComponent(filename)}`, { method: 'DELETE', credentials: 'same-origin', keepalive: true });
      this.files.clear();
    });
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  has(filename: string): boolean {
    return this.files.has(filename);
  }

  /** The files waiting, with the folder each is in (the sidebar's counts leave them out). */
  records(): FileRecord[] {
    return [...this.files.values()];
  }

  hold(files: FileRecord[]): void {
    for (const file of files) this.files.set(file.filename, file);
    this.emit();
  }

  /** Undo: the files come back where they were. */
  release(filenames: string[]): void {
    for (const filename of filenames) this.files.delete(filename);
    this.emit();
  }

  /** Sends the deletes still waiting among `filenames`; what could not be deleted shows again. */
  async commit(filenames: string[]): ReturnType<typeof deleteFiles> {
    const waiting = filenames.filter((filename) => this.files.has(filename));
    const outcome = await deleteFiles(waiting);
    announceChanges(outcome.deleted.map((filename) => ({ kind: 'removed', filename })));
    this.release(waiting);
    return outcome;
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}

export const pendingDeletes = new PendingDeletes();
