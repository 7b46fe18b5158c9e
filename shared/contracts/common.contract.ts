import 'zod-openapi';
import { z } from 'zod';

// Building blocks of every record: how times, ids, sizes and envelopes are written.

export const isoDate = z.iso.datetime().meta({ example: '2026-01-31T12:00:00.000Z' });
export const uuid = z.uuid().meta({ example: '4fc9007e-1d0c-4fcf-a05c-0dac5ce46238' });
export const bytes = z.number().int().min(0);
export const count = z.number().int().min(0);
/** A stored body's SHA-256, hex: taken from its bytes as they streamed into storage (after any metadata removal). */
export const sha256Hex = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .meta({ description: 'SHA-256 (hex) of the stored bytes, which the hosted URL serves', example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' });

/** `{success: true, data}` — most REST answers. */
export const ok = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });

export const errorBodySchema = z
  .object({
    success: z.literal(false),
    error: z.string().meta({ description: 'What went wrong, for people' }),
    retryAfter: z.number().int().min(1).optional().meta({ description: 'Seconds to wait before retrying (429 and 503; also sent as Retry-After)' }),
    details: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'Each invalid field of a 400 from request validation' }),
    requiredScope: z.string().optional().meta({ description: 'The scope an access token lacks (403)' }),
    requestId: z.string().optional().meta({ description: 'Correlation id of an unexpected failure, as logged' }),
  })
  .meta({ id: 'ErrorBody', description: 'The one error body of every /api route', example: { success: false, error: 'Invalid API key' } });
