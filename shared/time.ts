/** YYYY-MM-DD of the UTC day. */
export function utcDay(at = new Date()): string {
  return at.toISOString().slice(0, 10);
}

/** YYYY-MM of the UTC month. */
export function utcMonth(at = new Date()): string {
  return at.toISOString().slice(0, 7);
}

export function secondsUntilNextUtcDay(at = new Date()): number {
  const next = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
  return Math.ceil((next - at.getTime()) / 1000);
}

export function secondsUntilNextUtcMonth(at = new Date()): number {
  const next = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
  return Math.ceil((next - at.getTime()) / 1000);
}
