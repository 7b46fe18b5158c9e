import { isAppError } from '../../shared/errors.js';

// What busboy and multer say when a multipart body itself is broken or cut short: fixed strings.
// Anything else that fails while a body is being stored is the storage's (or our) failure.
const MALFORMED_BODY =
  /^(?:Malformed (?:part header|content type|urlencoded form)|Multipart: Boundary not found|Unexpected end of (?:form|file)|Missing Content-Type|Unsupported content type|Request (?:aborted|closed))/;

/** Whether a failure while receiving a body was the sender's: a broken, truncated or aborted body. */
export function isMalformedBody(err: unknown): boolean {
  return err instanceof Error && !isAppError(err) && MALFORMED_BODY.test(err.message);
}
