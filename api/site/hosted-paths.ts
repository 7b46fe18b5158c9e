import type { HostRole } from '../../shared/services/files/file-urls.js';
import type { HostedTarget } from '../../shared/services/files/hosted-file.service.js';

export interface HostedRoute {
  target: HostedTarget;
  /** The route pattern, for the request metrics (never the raw path). */
  route: string;
}

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

/** A path segment decoded; '' when it is not valid percent-encoding (nothing is named so). */
function decoded(segment: string | undefined): string {
  if (segment === undefined) return '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}
