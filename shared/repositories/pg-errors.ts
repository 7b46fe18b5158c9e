import { AppError } from '../errors.js';

/** PostgreSQL unique_violation, from node-postgres or PGlite (both expose the SQLSTATE as `code`). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = findPgError(err);
  return e?.code === '23505' && (!constraint || e.constraint === constraint);
}

/**
 * PostgreSQL foreign_key_violation: the row referred to vanished between a check and a write
 * (e.g. a folder deleted while a request moves a file into it).
 */
export function isForeignKeyViolation(err: unknown): boolean {
  return findPgError(err)?.code === '23503';
}

/**
 * Text with a NUL byte, which no text column can hold: character_not_in_repertoire as a text
 * parameter, untranslatable_character inside a JSON one. Such input can never name anything
 * stored, so it is the caller's mistake, not ours.
 */
export function isUnstorableText(err: unknown): boolean {
  const code = findPgError(err)?.code;
  return code === '22021' || code === '22P05';
}

/** A statement refused for what one of its rows holds (data exception or integrity violation). */
export function isRowError(err: unknown): boolean {
  const code = findPgError(err)?.code;
  return code !== undefined && (code.startsWith('22') || code.startsWith('23'));
}

/** Runs a write that refers to a folder; the folder disappearing meanwhile is a 404, not a 500. */
export async function whileFolderExists<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isForeignKeyViolation(err)) throw AppError.notFound('Folder not found');
    throw err;
  }
}

function findPgError(err: unknown): { code?: string; constraint?: string } | undefined {
  // drizzle wraps driver errors in DrizzleQueryError with the original as `cause`.
  let current = err as { code?: string; constraint?: string; cause?: unknown } | undefined;
  for (let depth = 0; current && depth < 5; depth++) {
    if (typeof current.code === 'string' && /^[0-9A-Z]{5}$/.test(current.code)) return current;
    current = current.cause as typeof current;
  }
  return undefined;
}
