import { isIP } from 'node:net';
import type { SecretBox } from '../../crypto.js';
import type { FileRow } from '../../db/schema.js';
import { canonicalQuery, type RenditionRequest } from '../media/renditions/rendition-params.js';

export type UrlFormat = FileRow['urlFormat'];

export interface UrlOwner {
  username: string;
  /** the account's active custom domain, if any */
  customDomain?: string | null;
}

type LinkedFile = Pick<FileRow, 'id' | 'filename' | 'shortCode' | 'urlFormat' | 'isPrivate'>;

const MAX_REMEMBERED_HOSTS = 10_000;

/** What a private link's signature covers: the file, its expiry and a rendition's parameters (none for the file itself). */
function signedText(file: Pick<FileRow, 'id'>, expires: number | string, query: string): string {
  return query ? `file:${file.id}:${expires}:${query}` : `file:${file.id}:${expires}`;
}

/** What a request's Host names: a personal subdomain, the service itself, or nothing of ours. */
export type HostRole = { kind: 'subdomain'; username: string } | { kind: 'service' } | { kind: 'unknown' };

/**
 * Builds every hosted-URL style of architecture.md §3 from SITE_URL. A file keeps the style it was
 * uploaded with, so changing the account's style never rewrites existing links. A private file's
 * URL carries a short-lived signature; without a valid one it is not served.
 */
export class FileUrls {
  private readonly roles = new Map<string, HostRole>();
  private readonly site: URL;
  private readonly base: URL;

  constructor(
    siteUrl: string,
    baseUrl: string,
    private readonly box: SecretBox,
    private readonly privateLinkTtlSeconds: number,
  ) {
    this.site = new URL(siteUrl);
    this.base = new URL(baseUrl);
  }

  /** host[:port] of the site, which personal subdomains hang under */
  get siteHost(): string {
    return this.site.host;
  }

  /**
   * The file's link, or a rendition's (`?w=640&format=auto`); a private file's is signed for
   * `ttlSeconds` (PRIVATE_LINK_TTL_SECONDS unless told).
   */
  forFile(file: LinkedFile, owner: UrlOwner | null, ttlSeconds = this.privateLinkTtlSeconds, rendition?: RenditionRequest): string {
    const url = this.publicUrl(file, owner);
    if (file.isPrivate) return this.signed(url, file, ttlSeconds, rendition);
    const query = canonicalQuery(rendition);
    return query ? `${url}?${query}` : url;
  }

  /**
   * `url` (the file's link, or a thumbnail of it) with a signature for the file, valid `ttlSeconds`;
   * a rendition's parameters are signed with it, so none can be added or changed.
   */
  signed(url: string, file: Pick<FileRow, 'id'>, ttlSeconds = this.privateLinkTtlSeconds, rendition?: RenditionRequest): string {
    const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
    const query = canonicalQuery(rendition);
    return `${url}?${query ? `${query}&` : ''}expires=${expires}&signature=${this.box.sign(signedText(file, expires, query))}`;
  }

  /** Whether a request for a private file (or a rendition of it) carries an unexpired signature for it. */
  verifyPrivateLink(file: Pick<FileRow, 'id'>, expires: unknown, signature: unknown, rendition?: RenditionRequest, now = Date.now()): boolean {
    if (typeof expires !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(expires)) return false;
    if (Number(expires) * 1000 <= now) return false;
    return this.box.verify(signedText(file, expires, canonicalQuery(rendition)), signature);
  }

  private publicUrl(file: LinkedFile, owner: UrlOwner | null): string {
    const name = encodeURIComponent(file.filename);
    if (!owner || file.urlFormat === 'anonymous') return `${this.site.origin}/f/${name}`;
    switch (file.urlFormat) {
      case 'short':
        return `${this.site.origin}/s/${file.shortCode}`;
      case 'standard':
        return this.standard(owner.username, file.filename);
      case 'custom':
        // Without an active domain (removed or lapsed) custom links fall back to the subdomain.
        if (owner.customDomain) return `https://${owner.customDomain}/${name}`;
        return this.subdomain(owner.username, file.filename);
      default:
        return this.subdomain(owner.username, file.filename);
    }
  }

  /** Every URL that serves this file, whatever style it was shared in (for CDN purges). */
  allFor(file: Pick<FileRow, 'filename' | 'shortCode'>, owner: UrlOwner | null): string[] {
    if (!owner) return [`${this.site.origin}/f/${encodeURIComponent(file.filename)}`];
    const urls = [
      this.subdomain(owner.username, file.filename),
      this.standard(owner.username, file.filename),
      `${this.site.origin}/s/${file.shortCode}`,
    ];
    if (owner.customDomain) urls.push(`https://${owner.customDomain}/${encodeURIComponent(file.filename)}`);
    return urls;
  }

  subdomainBase(username: string): string {
    return `${this.site.protocol}//${username}.${this.site.host}`;
  }

  standardBase(username: string): string {
    return `${this.site.origin}/u/${encodeURIComponent(username)}`;
  }

  subdomain(username: string, filename: string): string {
    return `${this.subdomainBase(username)}/${encodeURIComponent(filename)}`;
  }

  standard(username: string, filename: string): string {
    return `${this.standardBase(username)}/${encodeURIComponent(filename)}`;
  }

  /** Labels under the site that name hosts of the service itself (BASE_URL at api.{site}): never usernames. */
  ownLabels(): string[] {
    const suffix = `.${this.site.hostname}`;
    const label = this.base.hostname.endsWith(suffix) ? this.base.hostname.slice(0, -suffix.length) : '';
    return /^[a-z0-9-]+$/.test(label) ? [label] : [];
  }

  /**
   * Classifies a request's host name (without port; a trailing dot is the same name). The site's
   * and the API's own names are the service, and so are a bare IP address and localhost (health
   * checks, proxies that connect by address); one label under the site is a personal subdomain —
   * unless it is the API's own name; anything else is not ours.
   */
  hostRole(hostname: string): HostRole {
    // Asked on every request for a hosted file: the hosts a process sees are few, their answers fixed.
    let role = this.roles.get(hostname);
    if (!role) {
      role = this.roleOf(hostname);
      if (this.roles.size >= MAX_REMEMBERED_HOSTS) this.roles.clear();
      this.roles.set(hostname, role);
    }
    return role;
  }

  private roleOf(hostname: string): HostRole {
    const name = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
    const own = [this.site.hostname, this.base.hostname, 'localhost', ''];
    if (own.includes(name) || isIP(name)) return { kind: 'service' };
    const suffix = `.${this.site.hostname}`;
    const label = name.endsWith(suffix) ? name.slice(0, -suffix.length) : '';
    return /^[a-z0-9-]+$/.test(label) ? { kind: 'subdomain', username: label } : { kind: 'unknown' };
  }
}
