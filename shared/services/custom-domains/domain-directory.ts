import { createSecureContext, type SecureContext } from 'node:tls';
import type { Redis } from 'ioredis';
import { type SecretBox, sha256 } from '../../crypto.js';
import type { Logger } from '../../logger.js';
import type { CustomDomainRepository } from '../../repositories/custom-domain.repository.js';

interface Entry {
  username: string;
  context: SecureContext | undefined;
  /** of the certificate and sealed key the context was made from */
  fingerprint: string;
}

// How long a process trusts what it read without hearing of a change (a lost message heals by then).
const TTL_MS = 60_000;
// Any Host header can be asked about: the names remembered are bounded.
const MAX_ENTRIES = 10_000;

/**
 * Which account an active custom domain serves, and its certificate as a TLS context: read once per
 * process and kept; a change (activation, renewal, removal) is announced on Redis so every web process
 * forgets it at once.
 */
export class DomainDirectory {
  private readonly entries = new Map<string, { value: Promise<Entry | null>; at: number }>();

  constructor(
    private readonly deps: {
      domains: CustomDomainRepository;
      box: SecretBox;
      redis: Redis;
      channel: string;
      logger: Logger;
    },
  ) {}

  /** The active domain's owner, or undefined for a name that is not an active custom domain. */
  async ownerOf(hostname: string): Promise<string | undefined> {
    return (await this.lookup(hostname))?.username;
  }

  /** The TLS context of an active domain's certificate; undefined: no certificate for this name. */
  async secureContext(servername: string): Promise<SecureContext | undefined> {
    return (await this.lookup(servername))?.context;
  }

  /** Announces that a domain changed (every subscribed process forgets it, this one at once). */
  async changed(domain: string): Promise<void> {
    this.entries.delete(domain);
    await this.deps.redis.publish(this.deps.channel, domain).catch((err: unknown) => this.deps.logger.warn({ err, domain }, 'custom-domain change not announced'));
  }

  /** Web side: forgets domains other processes announce. Returns the unsubscriber. */
  async subscribe(subscriber: Redis): Promise<() => void> {
    const onMessage = (channel: string, domain: string) => {
      if (channel === this.deps.channel) this.entries.delete(domain);
    };
    subscriber.on('message', onMessage);
    await subscriber.subscribe(this.deps.channel);
    return () => subscriber.off('message', onMessage);
  }

  private lookup(hostname: string): Promise<Entry | null> {
    const domain = hostname.toLowerCase().replace(/\.$/, '');
    const cached = this.entries.get(domain);
    if (cached && Date.now() - cached.at < TTL_MS) return cached.value;
    const value = this.read(domain, cached?.value);
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(domain, { value, at: Date.now() });
    value.catch(() => this.entries.delete(domain));
    return value;
  }

  /** `previous`: what the name held before its TTL ran out; an unchanged certificate keeps its context. */
  private async read(domain: string, previous: Promise<Entry | null> | undefined): Promise<Entry | null> {
    const row = await this.deps.domains.findActive(domain);
    if (!row) return null;
    const fingerprint = sha256(`${row.certificatePem}\n${row.privateKeySealed}`);
    // Making a context (decrypting and parsing the key) costs milliseconds of CPU: remade for every
    // name each minute, it cost a web process with 1,000 domains a third more CPU per handshake.
    const before = await previous?.catch(() => null);
    if (before?.fingerprint === fingerprint) return { ...before, username: row.username };
    const context =
      row.certificatePem && row.privateKeySealed ? createSecureContext({ cert: row.certificatePem, key: this.deps.box.decrypt(row.privateKeySealed) }) : undefined;
    return { username: row.username, context, fingerprint };
  }
}
