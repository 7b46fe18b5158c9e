import { z } from 'zod';
import { EXPIRY_OPTIONS, EXPIRY_VALUES } from './values.js';

/** A file's expiry as records carry it: one of the choices, or null for never. */
export const expiryValueSchema = z.enum(EXPIRY_VALUES);

/** An expiry as clients send it: a choice, or '' / null / absent for never (always null out). */
export const expirySchema = z
  .enum(['', ...EXPIRY_VALUES], { error: 'expiry must be empty, 1h, 6h, 1d, 7d or 30d' })
  .nullish()
  .transform((v) => v || null);
export type Expiry = z.output<typeof expirySchema>;

export const expiryOptionSchema = z.object({ value: z.enum(EXPIRY_OPTIONS.map((o) => o.value)), label: z.string() });
