import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

// 2000::/3 is the only IPv6 space IANA has allocated as global unicast. ipaddr.js calls anything it
// has no name for 'unicast' (e.g. the IPv4-compatible ::7f00:1 or 4000::1), so we bound it here.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * True only for a globally routable unicast address that a server-side fetch may connect to.
 * Accepts only the canonical textual forms `net.isIP` knows (what DNS and WHATWG URL parsing
 * produce); odd spellings such as `0x7f.1` are refused rather than interpreted.
 */
export function isPublicAddress(ip: string): boolean {
  // Zone ids only make sense on link-local scopes, which are never public anyway.
  const family = isIP(ip);
  if (family === 0 || ip.includes('%')) return false;
  // ipaddr.js reads the IPv4-compatible `::a.b.c.d` as if it were `::ffff:a.b.c.d`; the WHATWG
  // serialisation is all hex, which it parses faithfully.
  const address = ipaddr.parse(family === 6 ? new URL(`http://[${ip}]`).hostname.slice(1, -1) : ip);
  return address instanceof ipaddr.IPv4 ? isPublicV4(address) : isPublicV6(address);
}

// ipaddr.js names every special-purpose IPv4 block (private, loopback, linkLocal, carrierGradeNat,
// multicast, broadcast, unspecified, reserved incl. documentation/benchmarking and 240/4, as112,
// amt); only what is left over is ordinary unicast.
function isPublicV4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast';
}

function isPublicV6(address: ipaddr.IPv6): boolean {
  const embedded = embeddedV4(address);
  if (embedded !== undefined) return embedded !== null && isPublicV4(embedded);
  return address.match(GLOBAL_UNICAST_V6) && address.range() === 'unicast';
}

/**
 * For IPv6 forms that carry an IPv4 address which the packet ends up at, returns that address so it
 * can be judged instead; `null` for transition forms we refuse outright; `undefined` for plain IPv6.
 */
function embeddedV4(address: ipaddr.IPv6): ipaddr.IPv4 | null | undefined {
  const parts = address.parts;
  const low32 = (): ipaddr.IPv4 =>
    new ipaddr.IPv4([parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff]);
  // The kernel connects ::ffff:a.b.c.d over IPv4, and a NAT64 gateway translates 64:ff9b::a.b.c.d
  // to a.b.c.d, so both are exactly as reachable as the IPv4 address inside.
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  if (address.match(NAT64_WELL_KNOWN)) return low32();
  switch (address.range()) {
    // 6to4 (2002:AABB:CCDD::/48) routes to the IPv4 relay address in bits 16–47.
    case '6to4':
      return new ipaddr.IPv4([parts[1]! >> 8, parts[1]! & 0xff, parts[2]! >> 8, parts[2]! & 0xff]);
    // Teredo carries two IPv4 addresses (one obfuscated), 64:ff9b:1::/48 is an operator-chosen
    // local NAT64 prefix with no fixed embedding, and SIIT (::ffff:0:a.b.c.d) is translated by
    // whatever sits on the path: none is needed for fetching files, so refuse rather than guess.
    case 'teredo':
    case 'rfc6052':
    case 'rfc6145':
      return null;
    default:
      return undefined;
  }
}
