import { z } from 'zod';
import { SCOPE_NAMES } from '../scopes.js';
import { isoDate, uuid } from './common.contract.js';

const TEN_YEARS_SECONDS = 10 * 366 * 24 * 3600;

export const scopeSchema = z.enum(SCOPE_NAMES, { error: `each scope must be one of ${SCOPE_NAMES.join(', ')}` });

/** A personal access token as listed: never its secret. */
export const accessTokenSchema = z
  .object({
    id: uuid,
    name: z.string(),
    scopes: z.array(scopeSchema),
    createdAt: isoDate,
    expiresAt: isoDate.nullable(),
    lastUsedAt: isoDate.nullable().meta({ description: 'Updated at most once a minute' }),
  })
  .meta({ id: 'AccessToken' });
export type AccessToken = z.output<typeof accessTokenSchema>;

/** The answer of its creation: the only time the secret is shown. */
export const newAccessTokenSchema = accessTokenSchema
  .extend({ token: z.string().meta({ description: 'The secret (hfs_pat_…), shown in this answer only', example: 'hfs_pat_3kTq9…' }) })
  .meta({ id: 'NewAccessToken' });
export type NewAccessToken = z.output<typeof newAccessTokenSchema>;

export const createAccessTokenSchema = z.object({
  name: z.string({ error: 'name is required' }).trim().min(1, 'name must not be empty').max(64, 'name must be at most 64 characters'),
  scopes: z
    .array(scopeSchema, { error: 'scopes must be a list of scopes' })
    .min(1, 'scopes must name at least one scope')
    .transform((scopes) => SCOPE_NAMES.filter((name) => scopes.includes(name))),
  expiresIn: z
    .number({ error: 'expiresIn must be a number of seconds' })
    .int('expiresIn must be a whole number of seconds')
    .min(60, 'expiresIn must be at least 60 seconds')
    .max(TEN_YEARS_SECONDS, 'expiresIn must be at most ten years')
    .optional()
    .meta({ description: 'Seconds until the token stops working; none: it works until revoked' }),
});
export type CreateAccessToken = z.output<typeof createAccessTokenSchema>;
