import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { AppError } from '../../errors.js';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * The domain as stored and compared: trimmed, lower case, no trailing dot, IDNA in punycode. Refused
 * (400) unless it is a fully qualified host name that is not an IP literal and not the service's own
 * domain or a name under it.
 */
export function normalizeDomain(input: unknown, ownHosts: readonly string[]): string {
  if (typeof input !== 'string' || !input.trim()) throw AppError.badRequest('domain is required');
  const trimmed = input.trim().toLowerCase().replace(/\.$/, '');
  if (isIP(trimmed) || isIP(trimmed.replace(/^\[|\]$/g, ''))) throw AppError.badRequest('domain must be a host name, not an IP address');
  const ascii = domainToASCII(trimmed);
  const labels = ascii.split('.');
  const valid = ascii.length > 0 && ascii.length <= 253 && labels.length >= 2 && labels.every((label) => LABEL.test(label)) && !/^\d+$/.test(labels.at(-1)!);
  if (!valid) throw AppError.badRequest('domain must be a fully qualified host name, e.g. files.example.com');
  for (const own of ownHosts) {
    if (ascii === own || ascii.endsWith(`.${own}`)) throw AppError.badRequest(`domain must not be ${own} or a name under it`);
  }
  return ascii;
}
