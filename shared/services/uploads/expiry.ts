import type { Expiry } from '../../contracts/expiry.contract.js';

const HOUR = 60 * 60 * 1000;
const DURATION_MS: Record<NonNullable<Expiry>, number> = { '1h': HOUR, '6h': 6 * HOUR, '1d': 24 * HOUR, '7d': 7 * 24 * HOUR, '30d': 30 * 24 * HOUR };

export function expiresAtFor(expiry: Expiry, from = Date.now()): Date | null {
  return expiry ? new Date(from + DURATION_MS[expiry]) : null;
}

// Expiry timers fire on these boundaries: files due close together are deleted by one sweep, in
// large batches whose objects go in one delete each, not by a small sweep per file.
const TIMER_STEP_MS = 5000;

/** How long the timer of a file due at `expiresAt` waits: until the first boundary at or after it. */
export function expiryTimerDelay(expiresAt: Date, now = Date.now()): number {
  return Math.max(0, Math.ceil(expiresAt.getTime() / TIMER_STEP_MS) * TIMER_STEP_MS - now);
}
