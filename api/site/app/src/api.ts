// Every call the front end makes to the REST API: same origin, the session cookie, and the API's
// error body (`{success: false, error}`) turned into an ApiError with words a person can read.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const PLAIN_WORDS: Record<number, string> = {
  401: 'Your session has ended. Sign in again.',
  403: 'That is not allowed for this account.',
  404: 'It is no longer there.',
  413: 'That file is larger than your plan allows.',
  429: 'Too many requests right now. Try again in a moment.',
};

/** The message to show for a failed call: the API's own words, else a plain one for the status. */
export function messageOf(status: number, body: Record<string, unknown>): string {
  // A refused field's own words, without the "field: " the summary puts before each.
  const details = Array.isArray(body.details) ? body.details.map((d: { message?: unknown }) => d?.message).filter((m): m is string => typeof m === 'string' && m !== '') : [];
  if (details.length) return details.join('; ');
  if (typeof body.error === 'string' && body.error) return body.error;
  if (typeof body.message === 'string' && body.message) return body.message;
  return PLAIN_WORDS[status] ?? (status >= 500 ? 'The server had a problem. Try again shortly.' : `The request failed (${status}).`);
}

/** The body of an answer as a JSON object, or {} when it is not one. */
export function bodyOf(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** sent as JSON, or as it is when FormData */
  body?: unknown;
  signal?: AbortSignal;
}

/** Calls `/api${path}` and answers the parsed JSON body; throws ApiError on any non-2xx. */
export async function api<T = Record<string, unknown>>(path: string, options: CallOptions = {}): Promise<T> {
  const isForm = options.body instanceof FormData;
  let res: Response;
  try {
    res = await fetch(`/api${path}`, {
      method: options.method ?? 'GET',
      credentials: 'same-origin',
      headers: options.body === undefined || isForm ? {} : { 'content-type': 'application/json' },
      body: options.body === undefined ? undefined : isForm ? (options.body as FormData) : JSON.stringify(options.body),
      signal: options.signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'The server cannot be reached. Check your connection.');
  }
  const body = bodyOf(await res.text());
  if (!res.ok) {
    if (res.status === 401) location.assign(`/login?next=${encodeURIComponent(location.pathname + location.search)}`);
    throw new ApiError(res.status, messageOf(res.status, body), body);
  }
  return body as T;
}
