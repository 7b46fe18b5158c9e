/**
 * The one error type of the domain. `status` is the HTTP status the error middleware answers with,
 * `code` a stable machine name, and `extra` fields that belong in the body (e.g. retryAfter).
 * Errors below 500 (and 503, whose message says only what to do) expose their message; others are
 * logged and answered generically.
 */
export class AppError extends Error {
  readonly expose: boolean;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    options?: ErrorOptions & { expose?: boolean },
  ) {
    super(message, options);
    this.name = 'AppError';
    this.expose = options?.expose ?? status < 500;
  }

  static badRequest(message: string, extra?: Record<string, unknown>) {
    return new AppError(400, 'bad_request', message, extra);
  }
  static unauthorized(message = 'Authentication required') {
    return new AppError(401, 'unauthorized', message);
  }
  static forbidden(message: string) {
    return new AppError(403, 'forbidden', message);
  }
  /** A personal access token without the scope the route needs: the body names it (`requiredScope`). */
  static missingScope(scope: string) {
    return new AppError(403, 'insufficient_scope', `This token lacks the ${scope} scope`, { requiredScope: scope });
  }
  static notFound(message = 'Not found') {
    return new AppError(404, 'not_found', message);
  }
  static conflict(message: string) {
    return new AppError(409, 'conflict', message);
  }
  static tooLarge(message: string) {
    return new AppError(413, 'payload_too_large', message);
  }
  static tooManyRequests(message: string, retryAfterSeconds: number) {
    return new AppError(429, 'too_many_requests', message, { retryAfter: Math.max(1, Math.ceil(retryAfterSeconds)) });
  }
  /** Redis or PostgreSQL cannot be reached: nothing was changed, retry after `retryAfterSeconds`. */
  static unavailable(message: string, retryAfterSeconds: number) {
    return new AppError(503, 'service_unavailable', message, { retryAfter: retryAfterSeconds }, { expose: true });
  }
  /** A service we depend on (a certificate authority) failed: nothing was saved; the message says so. */
  static upstreamFailed(message: string, cause?: unknown) {
    return new AppError(502, 'bad_gateway', message, {}, { cause, expose: true });
  }
  /** `cause`: what failed underneath, for the log (a 5xx never shows it). */
  static storageUnavailable(message = 'Storage is briefly unavailable, nothing was saved; retry', cause?: unknown) {
    return new AppError(502, 'storage_unavailable', message, {}, { cause });
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
