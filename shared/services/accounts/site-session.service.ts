import { randomHex, type SecretBox } from '../../crypto.js';

/** Cookie the website sets for visitors; anonymous uploads must carry it (architecture.md §4). */
export const SITE_SESSION_COOKIE = 'hfs_site';

/** Signed, stateless visitor sessions: proof that a request comes from a page the site served. */
export class SiteSessionService {
  constructor(
    private readonly box: SecretBox,
    private readonly siteOrigin: string,
  ) {}

  issue(): string {
    const id = randomHex(16);
    return `${id}.${this.box.sign(`site:${id}`)}`;
  }

  verify(value: string | undefined): boolean {
    if (!value) return false;
    const [id, signature] = value.split('.');
    return Boolean(id && signature && this.box.verify(`site:${id}`, signature));
  }

  /** Origin, or failing that Referer, names the site itself. */
  isSameOrigin(origin: string | undefined, referer: string | undefined): boolean {
    if (origin) return origin === this.siteOrigin;
    if (!referer) return false;
    try {
      return new URL(referer).origin === this.siteOrigin;
    } catch {
      return false;
    }
  }
}
