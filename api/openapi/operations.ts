import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { errorBodySchema } from '../../shared/contracts/common.contract.js';

// The building blocks of every operation in the OpenAPI document: error answers, bodies, security.

const ERRORS = {
  400: 'Invalid request: the body, query or a field is wrong (`details` names each bad field)',
  401: 'No credentials, or ones that are not recognised',
  403: 'Not allowed for this account (plan, ban, folder key without Pro, storage full), or an access token without the scope (`requiredScope`)',
  404: 'Not found, or not this account’s',
  409: 'Conflict (a name taken, a generated name collided: retry)',
  413: 'Too large for the plan or the storage left',
  422: 'The image cannot be rendered (not an image, or past a rendition limit: pixels, frames, time)',
  429: 'Rate limit reached: retry after `retryAfter` seconds',
  501: 'Not implemented (oEmbed: a format other than json)',
  502: 'Storage or an upstream service failed; nothing was saved: retry',
  503: 'PostgreSQL or Redis is briefly unreachable; nothing was changed: retry after `retryAfter` seconds',
} as const;
export type ErrorStatus = keyof typeof ERRORS;
const NAMES: Record<ErrorStatus, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  413: 'TooLarge',
  422: 'UnprocessableImage',
  429: 'TooManyRequests',
  501: 'NotImplemented',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
};
const retryAfterHeader = z.object({ 'Retry-After': z.string().meta({ description: 'Seconds, as in the body' }) });
// Registered once (by id) and referenced by every operation that can answer it.
const errorResponses = {} as Record<ErrorStatus, ZodOpenApiResponseObject>;
for (const status of Object.keys(ERRORS).map(Number) as ErrorStatus[]) {
  errorResponses[status] = {
    id: NAMES[status],
    description: ERRORS[status],
    ...(status === 429 || status === 503 ? { headers: retryAfterHeader } : {}),
    content: { 'application/json': { schema: errorBodySchema } },
  };
}

export const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
export const answer = (description: string, schema: z.ZodType): ZodOpenApiResponseObject => ({ description, ...json(schema) });

/**
 * An operation whose 200 is `ok`, with the error answers it can give; 503 too unless it touches no
 * database (`static`): PostgreSQL or Redis out of reach is a 503 on every other route.
 */
export function op(
  tag: string,
  summary: string,
  ok: ZodOpenApiResponseObject,
  errors: ErrorStatus[],
  more: Omit<ZodOpenApiOperationObject, 'responses'> = {},
  reach: 'data' | 'static' = 'data',
): ZodOpenApiOperationObject {
  const statuses = [...new Set(reach === 'data' ? [...errors, 503 as const] : errors)].sort();
  return { tags: [tag], summary, ...more, responses: { 200: ok, ...Object.fromEntries(statuses.map((s) => [s, errorResponses[s]])) } };
}

export const ANONYMOUS: Record<string, string[]> = {};
export const noAuth = { security: [] };
// Uploads take a key, or none from the website itself (same origin, its visitor cookie).
export const keyOrWebsite = { security: [{ apiKey: [] }, ANONYMOUS] };
export const path = <T extends Record<string, z.ZodType>>(shape: T) => ({ requestParams: { path: z.object(shape) } });
export const body = (schema: z.ZodType) => ({ requestBody: { required: true, ...json(schema) } });
