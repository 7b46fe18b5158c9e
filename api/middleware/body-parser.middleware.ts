import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware } from 'koa';
import getRawBody from 'raw-body';
import { AppError } from '../../shared/errors.js';
import { isStorablePercentEncoded, isStorableText, isStorableUtf8, unstorableText } from '../../shared/text-hygiene.js';
import type { AppState } from '../state.js';

/**
 * How deep a JSON body may nest arrays and objects. No request of this API or of MCP comes near it;
 * deeper input only serves to exhaust the stack of whatever walks it (the MCP SDK answered 500).
 */
export const MAX_JSON_DEPTH = 64;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const [QUOTE, BACKSLASH, OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT] = [0x22, 0x5c, 0x5b, 0x5d, 0x7b, 0x7d];

const malformed = () => new AppError(400, 'malformed_json', 'Malformed JSON body');

/** The body's bytes, at most `limit` of them (413 past it, before reading on). */
export async function readBody(ctx: Context, limit: number): Promise<Buffer> {
  const encoding = ctx.get('content-encoding');
  if (encoding && encoding !== 'identity') throw new AppError(415, 'unsupported_encoding', 'Compressed request bodies are not accepted');
  try {
    return await getRawBody(ctx.req, { limit, length: ctx.request.length ?? null });
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status === 413) throw AppError.tooLarge(`The request body is larger than ${limit} bytes`);
    if (status !== undefined && status < 500) throw AppError.badRequest('The request body was cut short or could not be read');
    throw err;
  }
}

/**
 * JSON as every endpoint takes it: UTF-8, an object or array nested at most MAX_JSON_DEPTH deep
 * (counted before parsing), every string and key storable text, no `__proto__` key (as co-body's
 * parser refused). An empty body is `{}`, as before.
 */
export function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) return {};
  if (!isStorableUtf8(bytes)) throw unstorableText();
  const text = bytes.toString('utf8');
  if (!/^[\x20\x09\x0a\x0d]*[[{]/.test(text)) throw malformed();
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new AppError(400, 'json_too_deep', `JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text, storableOnly);
  } catch (err) {
    throw err instanceof AppError ? err : malformed();
  }
}

function storableOnly(key: string, value: unknown): unknown {
  if (key === '__proto__') throw malformed();
  if (!isStorableText(key) || (typeof value === 'string' && !isStorableText(value))) throw unstorableText();
  return value;
}

/** One pass over JSON text counting brackets outside strings; each string is skipped whole by indexOf. */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = closingQuote(text, i);
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return false;
}

/** Where the string opened at `open` ends: the next quote not escaped by an odd run of backslashes. */
function closingQuote(text: string, open: number): number {
  for (let i = text.indexOf('"', open + 1); i !== -1; i = text.indexOf('"', i + 1)) {
    let slashes = 0;
    while (text.charCodeAt(i - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return i;
  }
  return text.length;
}

/**
 * The app's body parser: JSON by `parseJson`, forms by @koa/bodyparser with their escapes checked
 * by the same rule (the consent page and the account page's buttons post forms).
 */
export function parseBodies({ jsonLimit, formLimit }: { jsonLimit: number; formLimit: number }): Middleware<AppState> {
  const forms = bodyParser({
    enableTypes: ['form'],
    formLimit,
    onError: (err) => {
      throw (err as { status?: number }).status === 413 ? AppError.tooLarge(`A form body is at most ${formLimit} bytes`) : AppError.badRequest('Malformed form body');
    },
  });
  return async (ctx, next) => {
    if (!BODY_METHODS.has(ctx.method)) return next();
    if (ctx.is('json', '+json')) {
      ctx.request.body = parseJson(await readBody(ctx, jsonLimit));
      return next();
    }
    return forms(ctx, async () => {
      if (ctx.request.rawBody && !isStorablePercentEncoded(ctx.request.rawBody)) throw unstorableText();
      await next();
    });
  };
}
