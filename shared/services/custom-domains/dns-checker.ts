import { promises as dns } from 'node:dns';

/** The resolver could not answer (SERVFAIL, timeout, refused): nothing can be concluded yet. */
export class DnsUnavailableError extends Error {
  override name = 'DnsUnavailableError';
}

// "No such record" in its forms; ENOTIMP: a server that does not do this type (CAA on some) has none.
const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME', 'NXDOMAIN', 'ENOTIMP']);
const MAX_CNAME_DEPTH = 8;

export interface CaaRecord {
  critical: number;
  issue?: string;
  issuewild?: string;
  iodef?: string;
}

/**
 * Reads the records a custom domain publishes, through the configured resolvers. "No such record" is
 * an answer (empty); a resolver failure is a DnsUnavailableError, never a "no".
 */
export class DnsChecker {
  private readonly resolver = new dns.Resolver({ timeout: 3000, tries: 2 });

  constructor(servers: readonly string[]) {
    if (servers.length) this.resolver.setServers([...servers]);
  }

  /** The CNAME targets from `name` on, followed up to a depth limit (empty: no CNAME). */
  async cnameChain(name: string): Promise<string[]> {
    const chain: string[] = [];
    let current = name;
    for (let depth = 0; depth < MAX_CNAME_DEPTH; depth++) {
      const [target] = await this.lookup(() => this.resolver.resolveCname(current));
      if (!target) break;
      current = target.toLowerCase().replace(/\.$/, '');
      if (chain.includes(current)) break;
      chain.push(current);
    }
    return chain;
  }

  /** IPv4 and IPv6 addresses of `name`. */
  async addresses(name: string): Promise<string[]> {
    const [v4, v6] = await Promise.all([this.lookup(() => this.resolver.resolve4(name)), this.lookup(() => this.resolver.resolve6(name))]);
    return [...v4, ...v6];
  }

  /** Each TXT record of `name`, its strings joined. */
  async txt(name: string): Promise<string[]> {
    return (await this.lookup(() => this.resolver.resolveTxt(name))).map((parts) => parts.join(''));
  }

  /** The CAA records that govern `name`: those of the closest name, climbing the labels, that has any (RFC 8659). */
  async caa(name: string): Promise<{ owner: string; records: CaaRecord[] } | undefined> {
    const labels = name.split('.');
    for (let i = 0; i < labels.length - 1; i++) {
      const owner = labels.slice(i).join('.');
      const records = (await this.lookup(() => this.resolver.resolveCaa(owner))) as CaaRecord[];
      if (records.length) return { owner, records };
    }
    return undefined;
  }

  private async lookup<T>(query: () => Promise<T[]>): Promise<T[]> {
    try {
      return await query();
    } catch (err) {
      if (ABSENT.has((err as NodeJS.ErrnoException).code ?? '')) return [];
      throw new DnsUnavailableError(`DNS lookup failed: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
}
