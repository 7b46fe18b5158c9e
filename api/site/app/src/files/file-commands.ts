import { plural } from '../format.js';
import { useToasts } from '../toasts/toasts.js';
import type { FileRecord, Folder } from '../types.js';
import { moveFiles } from './file-api.js';
import { shownName } from './file-facts.js';
import { announceChanges } from './library-changes.js';
import { pendingDeletes } from './pending-deletes.js';

// Moving and deleting files, from the selection bar, a file's actions or its page: one outcome in a
// toast, each with Undo (a move goes back to where each file was; a delete waits for the toast).

/** How long a delete can be undone before its request goes. */
const UNDO_DELETE_MS = 6000;

const what = (files: FileRecord[]) => (files.length === 1 ? shownName(files[0]!) : plural(files.length, 'file'));
const reasons = (errors: { filename: string; error: string }[]) => errors.map((e) => `${e.filename} (${e.error})`).join(', ');

export function useFileCommands() {
  const toasts = useToasts();

  /** Moves the files back to the folders they were in, all from one folder in one request. */
  const moveBack = async (files: FileRecord[]) => {
    const byFolder = new Map<string | null, FileRecord[]>();
    for (const file of files) byFolder.set(file.folderId, [...(byFolder.get(file.folderId) ?? []), file]);
    try {
      for (const [folderId, group] of byFolder) {
        const { moved } = await moveFiles(group.map((f) => f.filename), folderId);
        announceChanges(group.filter((f) => moved.includes(f.filename)).map((file) => ({ kind: 'saved', file })));
      }
      toasts.show({ message: `Moved ${what(files)} back.` });
    } catch (err) {
      toasts.show({ tone: 'error', message: `Could not move back: ${(err as Error).message}` });
    }
  };

  /** Moves the files to `folderId` (null or `root`: the root library); answers the names not moved. */
  const move = async (files: FileRecord[], folderId: string | null, folders: Folder[]): Promise<string[]> => {
    const target = folderId === 'root' ? null : folderId;
    const where = folders.find((f) => f.id === target)?.name ?? 'the root library';
    try {
      const { moved, errors } = await moveFiles(files.map((f) => f.filename), target);
      const before = files.filter((f) => moved.includes(f.filename));
      announceChanges(before.map((file) => ({ kind: 'saved', file: { ...file, folderId: target } })));
      const notMoved = errors.length ? ` Not moved: ${reasons(errors)}.` : '';
      if (before.length === 0) toasts.show({ tone: 'error', message: `Nothing was moved.${notMoved}` });
      else toasts.show({ tone: errors.length ? 'error' : 'success', message: `Moved ${what(before)} to ${where}.${notMoved}`, action: { label: 'Undo', run: () => void moveBack(before) } });
      return errors.map((e) => e.filename);
    } catch (err) {
      toasts.show({ tone: 'error', message: `Could not move ${what(files)}: ${(err as Error).message}` });
      return files.map((f) => f.filename);
    }
  };

  /** Hides the files at once; they are deleted when the toast closes, unless Undo is chosen. */
  const remove = (files: FileRecord[]) => {
    const filenames = files.map((f) => f.filename);
    pendingDeletes.hold(files);
    toasts.show({
      message: `Deleted ${what(files)}.`,
      durationMs: UNDO_DELETE_MS,
      action: { label: 'Undo', run: () => pendingDeletes.release(filenames) },
      onClose: (reason) => {
        if (reason === 'action') return toasts.show({ tone: 'info', message: `Kept ${what(files)}.` });
        void pendingDeletes.commit(filenames).then(
          ({ failed }) => failed.length > 0 && toasts.show({ tone: 'error', message: `Not deleted: ${reasons(failed)}.` }),
          (err: Error) => toasts.show({ tone: 'error', message: `Not deleted: ${err.message}` }),
        );
      },
    });
  };

  return { move, remove };
}
