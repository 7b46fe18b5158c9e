import { z } from 'zod';
import { SCOPE_NAMES } from '../scopes.js';
import { isoDate } from './common.contract.js';

export const connectionSchema = z
  .object({
    clientId: z.string(),
    clientName: z.string().nullable(),
    clientUri: z.string().nullable(),
    scopes: z.array(z.enum(SCOPE_NAMES)),
    connectedAt: isoDate,
    lastUsedAt: isoDate.nullable(),
  })
  .meta({ id: 'Connection', description: 'An AI assistant (OAuth client) connected to the account' });
export type Connection = z.output<typeof connectionSchema>;
