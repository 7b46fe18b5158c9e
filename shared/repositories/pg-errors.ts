import { unstorableText } from '../text-hygiene.js';
import { refused, type Outcome } from './outcome.js';

// SQLSTATE codes are the repositories' business: they read them here and nowhere else, and report
// what they mean as an outcome's reason, so no service or route ever sees a driver error.

const UNIQUE_VIOLATION = '23505';
/** the row referred to vanished between a check and a write (a folder deleted while a file moves into it) */
const FOREIGN_KEY_VIOLATION = '23503';

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

/** Which reason each of PostgreSQL's refusals the caller expects is reported as. */
export interface RefusalReasons<Reason extends string> {
  /** unique_violation: the name (or other unique value) is taken */
  unique?: Reason;
  /** foreign_key_violation: a row the statement refers to was deleted meanwhile */
  foreignKey?: Reason;
}

/**
 * Runs a statement (or a transaction) that answers an outcome, and reports PostgreSQL's refusals
 * named in `reasons` as refused outcomes. A transaction that answers a refusal of its own must not
 * have written anything, since it commits.
 */
export async function outcomeOf<T, Own extends string = never, Reason extends string = never>(
  statement: () => Promise<Outcome<T, Own>>,
  reasons: RefusalReasons<Reason> = {},
): Promise<Outcome<T, Reason | Own>> {
  try {
    return await statement();
  } catch (err) {
    const code = findPgError(err)?.code;
    if (reasons.unique && code === UNIQUE_VIOLATION) return refused(reasons.unique);
    if (reasons.foreignKey && code === FOREIGN_KEY_VIOLATION) return refused(reasons.foreignKey);
    throw unstorableTextOr(err);
  }
}

/**
 * Runs a statement; text no column can hold (a NUL byte) is the caller's 400, not our 500. Requests
 * are checked where they enter (text-hygiene.ts); this is the last net for text from elsewhere.
 */
export async function refusingUnstorableText<T>(statement: () => Promise<T>): Promise<T> {
  try {
    return await statement();
  } catch (err) {
    throw unstorableTextOr(err);
  }
}

function unstorableTextOr(err: unknown): unknown {
  return isUnstorableText(err) ? unstorableText() : err;
}

function findPgError(err: unknown): { code?: string } | undefined {
  // drizzle wraps driver errors in DrizzleQueryError with the original as `cause`.
  let current = err as { code?: string; cause?: unknown } | undefined;
  for (let depth = 0; current && depth < 5; depth++) {
    if (typeof current.code === 'string' && /^[0-9A-Z]{5}$/.test(current.code)) return current;
    current = current.cause as typeof current;
  }
  return undefined;
}
