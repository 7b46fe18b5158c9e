import type { Expiry } from '../../contracts/expiry.contract.js';

const HOUR = 60 * 60 * 1000;
const DURATION_MS: Record<NonNullable<Expiry>, number> = { '1h': HOUR, '6h': 6 * HOUR, '1d': 24 * HOUR, '7d': 7 * 24 * HOUR, '30d': 30 * 24 * HOUR };

export function expiresAtFor(expiry: Expiry, from = Date.now()): Date | null {
  return expiry ? new Date(from + DURATION_MS[expiry]) : null;
}
