import type { FileRecord } from '../types.js';

// Changes made to the library from anywhere in the app (an upload, a move and its Undo, a rename, a
// delete), told to whatever shows files: the grid places or drops them, the file page updates.

export type LibraryChange = { kind: 'saved'; file: FileRecord; oldFilename?: string | undefined } | { kind: 'removed'; filename: string };

const listeners = new Set<(changes: LibraryChange[]) => void>();

export function announceChanges(changes: LibraryChange[]): void {
  if (changes.length === 0) return;
  for (const listener of listeners) listener(changes);
}

export function onLibraryChange(listener: (changes: LibraryChange[]) => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
