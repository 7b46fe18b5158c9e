// Child processes, temp dirs and bench databases register their removal here, so a benchmark that
// throws or a runner stopped by a signal still leaves nothing behind.
const pending = new Set<() => Promise<void>>();

/** Registers `fn`; the returned function runs it once and unregisters it. */
export function onCleanup(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  const once = () => {
    pending.delete(once);
    done ??= fn();
    return done;
  };
  pending.add(once);
  return once;
}

/** Runs everything still registered, newest first (a service before the database it uses). */
export async function cleanUpAll(): Promise<void> {
  for (const fn of [...pending].reverse()) await fn().catch(() => undefined);
}
