import type { DomainDirectory } from '../../shared/services/custom-domains/domain-directory.js';
import type { FileUrls, HostRole } from '../../shared/services/files/file-urls.js';
import type { HostedTarget } from '../../shared/services/files/hosted-file.service.js';
import type { EmbedTarget } from '../../shared/services/media/embed.service.js';

export interface HostedRoute {
  target: HostedTarget;
  /** The route pattern, for the request metrics (never the raw path). */
  route: string;
}

/** What a host names: a role of FileUrls, or an active custom domain (served like its account's subdomain). */
export type SiteHost = HostRole | { kind: 'custom'; username: string };

const ALBUM_PATH = /^\/album\/([A-Za-z0-9_-]+)\/?$/;
const SHARE_LINK_PATH = /^\/l\/([A-Za-z0-9_-]+)\/?$/;
const SERVICE_PATHS = /^\/(?:u\/([^/]+)\/([^/]+)|f\/([^/]+)|s\/([^/]+))$/;

/**
 * The hosted file a request's Host and path name, if any: on the service's own hosts
 * `/u/{username}/{filename}`, `/f/{filename}` (anonymous) and `/s/{code}`; on a personal subdomain
 * `/{filename}`. Both the app's routes and the in-memory fast path route with this one function.
 */
export function hostedRouteOf(role: HostRole, path: string): HostedRoute | undefined {
  if (role.kind === 'subdomain') {
    const filename = decoded(path.slice(1));
    return filename && !filename.includes('/') ? { target: { kind: 'owned', username: role.username, filename }, route: '{subdomain}/:filename' } : undefined;
  }
  if (role.kind !== 'service') return undefined;
  const match = SERVICE_PATHS.exec(path);
  if (!match) return undefined;
  const [, username, filename, anonymous, code] = match.map(decoded);
  if (username && filename) return { target: { kind: 'owned', username, filename }, route: '/u/:username/:filename' };
  if (anonymous) return { target: { kind: 'anonymous', filename: anonymous }, route: '/f/:filename' };
  if (code) return { target: { kind: 'short', code }, route: '/s/:code' };
  return undefined;
}

/** The host as serving reads it; the custom domains are asked only about hosts that are not ours. */
export async function siteHostOf(urls: FileUrls, domains: DomainDirectory, hostname: string): Promise<SiteHost> {
  const role = urls.hostRole(hostname);
  if (role.kind !== 'unknown') return role;
  const username = await domains.ownerOf(hostname);
  return username ? { kind: 'custom', username } : role;
}

/** A custom domain serves its account's files as the personal subdomain does. */
export function servedAs(host: SiteHost): HostRole {
  return host.kind === 'custom' ? { kind: 'subdomain', username: host.username } : host;
}

/** What a pasted URL names, read by Host and path exactly as serving reads a request for it. */
export async function embedTargetOf(urls: FileUrls, domains: DomainDirectory, url: URL): Promise<EmbedTarget | undefined> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const role = servedAs(await siteHostOf(urls, domains, url.hostname));
  const hosted = hostedRouteOf(role, url.pathname);
  if (hosted) return { kind: 'file', file: hosted.target, url: `${url.origin}${url.pathname}` };
  if (role.kind !== 'service') return undefined;
  const album = ALBUM_PATH.exec(url.pathname);
  if (album) return { kind: 'album', shareId: album[1]! };
  const share = SHARE_LINK_PATH.exec(url.pathname);
  return share ? { kind: 'share', token: share[1]! } : undefined;
}

/** A path segment decoded; '' when it is not valid percent-encoding (nothing is named so). */
function decoded(segment: string | undefined): string {
  if (segment === undefined) return '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}
