import { AppError } from '../errors.js';

// SQLSTATE codes are the repositories' business: they turn them into AppErrors here and nowhere
// else, so no service or route ever sees a driver error it would have to understand.

/** PostgreSQL unique_violation, from node-postgres or PGlite (both expose the SQLSTATE as `code`). */
function isUniqueViolation(err: unknown): boolean {
  return findPgError(err)?.code === '23505';
}

/**
 * PostgreSQL foreign_key_violation: the row referred to vanished between a check and a write
 * (e.g. a folder deleted while a request moves a file into it).
 */
function isForeignKeyViolation(err: unknown): boolean {
  return findPgError(err)?.code === '23503';
}

/**
 * Text with a NUL byte, which no text column can hold: character_not_in_repertoire as a text
 * parameter, untranslatable_character inside a JSON one. Such input can never name anything
 * stored, so it is the caller's mistake, not ours.
 */
function isUnstorableText(err: unknown): boolean {
  const code = findPgError(err)?.code;
  return code === '22021' || code === '22P05';
}

/** A statement refused for what one of its rows holds (data exception or integrity violation). */
export function isRowRefusal(err: unknown): boolean {
  const code = findPgError(err)?.code;
  return code !== undefined && (code.startsWith('22') || code.startsWith('23'));
}

const UNSTORABLE_TEXT = 'Text must not contain NUL characters';

/** What a statement's refusal means to the caller; a refusal not named here stays what it is. */
export interface RefusalMeaning {
  /** unique_violation: the name (or other unique value) is taken */
  unique?: () => AppError;
  /** foreign_key_violation: a row the statement refers to was deleted meanwhile */
  foreignKey?: () => AppError;
}

/**
 * Runs a statement (or a transaction) and rethrows PostgreSQL's refusals of what its rows hold as
 * domain errors: those `meaning` names, and always text no column can hold (a NUL byte, 400).
 * AppErrors thrown inside pass through unchanged.
 */
export async function asDomainErrors<T>(statement: () => Promise<T>, meaning: RefusalMeaning = {}): Promise<T> {
  try {
    return await statement();
  } catch (err) {
    if (meaning.unique && isUniqueViolation(err)) throw meaning.unique();
    if (meaning.foreignKey && isForeignKeyViolation(err)) throw meaning.foreignKey();
    if (isUnstorableText(err)) throw AppError.badRequest(UNSTORABLE_TEXT);
    throw err;
  }
}

/** For writes that refer to a folder: the folder disappearing meanwhile is a 404, not a 500. */
export const FOLDER_GONE: RefusalMeaning = { foreignKey: () => AppError.notFound('Folder not found') };

function findPgError(err: unknown): { code?: string } | undefined {
  // drizzle wraps driver errors in DrizzleQueryError with the original as `cause`.
  let current = err as { code?: string; cause?: unknown } | undefined;
  for (let depth = 0; current && depth < 5; depth++) {
    if (typeof current.code === 'string' && /^[0-9A-Z]{5}$/.test(current.code)) return current;
    current = current.cause as typeof current;
  }
  return undefined;
}
