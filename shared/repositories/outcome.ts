/**
 * What a repository's write came to: its value, or the reason it was refused (a name taken, a
 * folder gone, a limit reached). Repositories report reasons; services word the errors clients see.
 */
export type Outcome<T, Reason extends string> = { ok: true; value: T } | { ok: false; reason: Reason };

export function done<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function refused<Reason extends string>(reason: Reason): { ok: false; reason: Reason } {
  return { ok: false, reason };
}
