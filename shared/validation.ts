import type { z } from 'zod';
import { AppError } from './errors.js';

/** Parses with a zod schema; a failure is a 400 naming each bad field, never a 500. */
export function validate<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details = result.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message }));
  const message = details.map((d) => (d.field ? `${d.field}: ${d.message}` : d.message)).join('; ');
  throw AppError.badRequest(message, { details });
}
