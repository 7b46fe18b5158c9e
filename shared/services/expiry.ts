import { z } from 'zod';

/** The spec's expiry choices; '' (or none) means the file never expires. */
export const EXPIRY_OPTIONS = [
  { value: '', label: 'Never' },
  { value: '1h', label: '1 hour' },
  { value: '6h', label: '6 hours' },
  { value: '1d', label: '1 day' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
] as const;

const HOUR = 60 * 60 * 1000;
const DURATION_MS: Record<string, number> = { '1h': HOUR, '6h': 6 * HOUR, '1d': 24 * HOUR, '7d': 7 * 24 * HOUR, '30d': 30 * 24 * HOUR };

export const expirySchema = z
  .enum(['', '1h', '6h', '1d', '7d', '30d'], { error: 'expiry must be empty, 1h, 6h, 1d, 7d or 30d' })
  .nullish()
  .transform((v) => v || null);

export type Expiry = z.output<typeof expirySchema>;

export function expiresAtFor(expiry: Expiry, from = Date.now()): Date | null {
  return expiry ? new Date(from + DURATION_MS[expiry]!) : null;
}
