import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../../crypto.js';
import { AppError } from '../../errors.js';
import type { Plans } from '../../plans.js';
import type { Principal } from '../../principal.js';
import { jobIds, type JobQueues } from '../../jobs.js';
import type { Logger } from '../../logger.js';
import type { CustomDomainRepository, CustomDomainRow } from '../../repositories/custom-domain.repository.js';
import type { NotificationService } from '../notifications/notification.service.js';
import { type AcmeIssuer, acmeChallengeName, type PendingOrder } from './acme-issuer.js';
import { type DnsChecker, DnsUnavailableError } from './dns-checker.js';
import type { DomainDirectory } from './domain-directory.js';
import { normalizeDomain } from './domain-name.js';
import type { HttpChallenges } from './http-challenges.js';
import type { CustomDomainState } from '../../contracts/custom-domain.contract.js';

export interface CustomDomainSettings {
  /** where customers point their CNAME */
  cnameTarget: string;
  /** the CA's name in CAA "issue" records */
  caaIdentity: string;
  /** the service's own host names: never a customer's domain, nor names under them */
  ownHosts: string[];
}

/** One record the customer publishes: what we expect, and what the last check saw. */
export interface RecordCheck {
  type: 'CNAME' | 'TXT';
  name: string;
  expected: string;
  seen: string[];
  ok: boolean;
}

const OWNERSHIP_LABEL = '_hfs-verify';
const DAY_MS = 24 * 60 * 60 * 1000;
// A pending domain is checked for a week, then failed; certificates renew 30 days before they end.
const PENDING_LIFETIME_MS = 7 * DAY_MS;
const RENEW_BEFORE_MS = 30 * DAY_MS;
const RENEWAL_WARNING_MS = 7 * DAY_MS;
const FIRST_CHECK_MS = 2 * 60_000;
const LONGEST_CHECK_GAP_MS = 6 * 60 * 60_000;

/** When a pending domain is checked again: minutes at first, doubling, at most six hours apart. */
export function nextDomainCheckInMs(attempt: number): number {
  return Math.min(FIRST_CHECK_MS * 2 ** Math.max(0, attempt - 1), LONGEST_CHECK_GAP_MS);
}

/**
 * A Pro account's own domain: the records to publish (a CNAME to us, an ownership TXT, the ACME
 * DNS-01 TXT), checks of what DNS says, and the certificate once everything holds. We are the
 * provider: the spec's Cloudflare-for-SaaS shape, with our own DNS checks and ACME.
 */
export class CustomDomainService {
  constructor(
    private readonly deps: {
      domains: CustomDomainRepository;
      plans: Plans;
      issuer: AcmeIssuer;
      dns: DnsChecker;
      box: SecretBox;
      directory: DomainDirectory;
      challenges: HttpChallenges;
      notifications: NotificationService;
      jobs: JobQueues;
      logger: Logger;
      settings: CustomDomainSettings;
    },
  ) {}

  async get(account: Principal): Promise<CustomDomainState> {
    this.assertPro(account);
    const row = await this.deps.domains.findByAccount(account.id);
    return row ? this.view(row) : { customDomain: null, customDomainStatus: 'none', cnameTarget: this.deps.settings.cnameTarget };
  }

  /** Adds the account's domain (one per account) and opens its certificate order; nothing is kept if that fails. */
  async add(account: Principal, input: { domain?: unknown }) {
    this.assertPro(account);
    const domain = normalizeDomain(input.domain, this.deps.settings.ownHosts);
    const existing = await this.deps.domains.findByAccount(account.id);
    if (existing?.domain === domain) return this.view(existing);
    if (existing) throw AppError.conflict(`Remove ${existing.domain} first: an account has one custom domain`);
    let order: PendingOrder;
    try {
      order = await this.deps.issuer.startDns01(domain);
    } catch (err) {
      throw AppError.upstreamFailed('The certificate authority could not be reached; nothing was saved, retry', err);
    }
    const outcome = await this.deps.domains.create(account.id, {
      domain,
      txtRecordName: `${OWNERSHIP_LABEL}.${domain}`,
      txtRecordValue: `hfs-verify=${randomBytes(16).toString('hex')}`,
    });
    if (!outcome.ok) throw AppError.conflict('This domain is already used by another account');
    const created = outcome.value;
    const row = await this.deps.domains.update(account.id, domain, {
      acmeState: { ...order },
      sslValidationRecords: [{ txt_name: acmeChallengeName(domain), txt_value: order.txtValue }],
      providerStatus: 'pending',
      sslStatus: 'pending_validation',
    });
    // Checked without the user from now on; a lost queueing is no loss, verify works all the same.
    const delay = nextDomainCheckInMs(1);
    await this.deps.jobs
      .add('domain.check', { accountId: account.id, domain, attempt: 0 }, { jobId: jobIds.domainCheck(domain, created.createdAt), delay })
      .catch((err: unknown) => this.deps.logger.warn({ err, domain }, 'could not schedule the domain check'));
    const scheduled = await this.deps.domains.update(account.id, domain, { nextCheckAt: new Date(Date.now() + delay) });
    return this.view(scheduled ?? row ?? created);
  }

  /**
   * Checks the records now; when all hold (and CAA lets our CA issue) completes the ACME challenge and
   * activates the domain. A resolver failure changes nothing: it is said, and the next check retries.
   */
  async verify(account: Principal) {
    this.assertPro(account);
    const row = await this.deps.domains.findByAccount(account.id);
    if (!row) throw AppError.notFound('No custom domain; add one first');
    const { row: updated } = await this.checkAndActivate(row);
    return this.view(updated);
  }

  /**
   * Scheduled check of a pending domain (the job of its own): what verify does, without a user.
   * Returns what became of it, for the job to reschedule or stop.
   */
  async checkScheduled(accountId: string, domain: string, attempt: number): Promise<'active' | 'pending' | 'failed' | 'gone'> {
    const row = await this.deps.domains.findByAccount(accountId);
    if (!row || row.domain !== domain) return 'gone';
    if (row.status !== 'pending') return row.status;
    const { row: updated } = await this.checkAndActivate(row);
    if (updated.status === 'active') return 'active';
    if (Date.now() - row.createdAt.getTime() < PENDING_LIFETIME_MS) {
      await this.deps.domains.update(accountId, domain, { nextCheckAt: new Date(Date.now() + nextDomainCheckInMs(attempt + 1)) });
      return 'pending';
    }
    await this.deps.domains.update(accountId, domain, { status: 'failed', nextCheckAt: null, providerStatus: updated.providerStatus === 'active' ? 'active' : 'failed' });
    await this.deps.notifications.notify(accountId, {
      type: 'custom_domain',
      title: 'Custom domain not verified',
      message: `${domain} could not be verified in 7 days. Check its DNS records, then verify again.`,
      data: { domain },
    });
    return 'failed';
  }

  /** Renews every active certificate that ends within 30 days, over HTTP-01; returns how many renewed. */
  async renewDue(now = new Date()): Promise<number> {
    let renewed = 0;
    for (const row of await this.deps.domains.dueForRenewal(new Date(now.getTime() + RENEW_BEFORE_MS))) {
      try {
        const issued = await this.deps.issuer.issueHttp01(row.domain, (token, keyAuthorization) => this.deps.challenges.publish(token, keyAuthorization));
        await this.deps.domains.update(row.accountId, row.domain, this.certificatePatch(issued));
        await this.deps.directory.changed(row.domain);
        renewed += 1;
      } catch (err) {
        this.deps.logger.warn({ err, domain: row.domain }, 'certificate renewal failed');
        const left = (row.certificateExpiresAt?.getTime() ?? 0) - now.getTime();
        if (left < RENEWAL_WARNING_MS) {
          await this.deps.notifications.notify(row.accountId, {
            type: 'custom_domain',
            title: 'Certificate renewal failing',
            message: `The certificate of ${row.domain} could not be renewed and ends ${row.certificateExpiresAt?.toISOString()}. Check that ${row.domain} still points at ${this.deps.settings.cnameTarget}.`,
            data: { domain: row.domain },
          });
        }
      }
    }
    return renewed;
  }

  /** The answer to an HTTP-01 challenge, for whichever web process the CA reaches. */
  challengeAnswer(token: string): Promise<string | null> {
    return this.deps.challenges.answer(token);
  }

  private async checkAndActivate(row: CustomDomainRow) {
    const { records, problems } = await this.check(row);
    const dnsChecks = Object.fromEntries(records.map((record, i) => [['cname', 'txt_val', 'ssl_val_0'][i]!, record.ok]));
    const now = new Date();
    let patch: Partial<CustomDomainRow> = { dnsChecks, lastCheckedAt: now, lastCheck: { records, problems } };
    const ownership = dnsChecks.cname === true && dnsChecks.txt_val === true;
    if (ownership) patch.providerStatus = 'active';
    if (ownership && dnsChecks.ssl_val_0 === true && problems.length === 0 && row.status !== 'active') {
      try {
        const issued = await this.deps.issuer.finishDns01(row.domain, row.acmeState as unknown as PendingOrder);
        patch = { ...patch, ...this.certificatePatch(issued), status: 'active', verifiedAt: now, nextCheckAt: null };
      } catch (err) {
        problems.push(`The certificate authority did not issue yet: ${(err as Error).message}`);
      }
    }
    const updated = (await this.deps.domains.update(row.accountId, row.domain, patch)) ?? row;
    if (updated.status === 'active' && row.status !== 'active') {
      await this.deps.domains.setAccountDomain(row.accountId, row.domain);
      await this.deps.directory.changed(row.domain);
      await this.deps.notifications.notify(row.accountId, {
        type: 'custom_domain',
        title: 'Custom domain active',
        message: `${row.domain} now serves your files over HTTPS; choose the custom URL style to use it for new uploads.`,
        data: { domain: row.domain },
      });
    }
    return { row: updated, records, problems };
  }

  private certificatePatch(issued: { certificatePem: string; privateKeyPem: string; expiresAt: Date }): Partial<CustomDomainRow> {
    return {
      sslStatus: 'active',
      certificatePem: issued.certificatePem,
      privateKeySealed: this.deps.box.encrypt(issued.privateKeyPem),
      certificateExpiresAt: issued.expiresAt,
    };
  }

  /** Ends the domain: its configuration and certificate go; custom-style links fall back to the subdomain. */
  async remove(account: Principal): Promise<void> {
    this.assertPro(account);
    const removed = await this.deps.domains.delete(account.id);
    if (!removed) throw AppError.notFound('No custom domain');
    await this.deps.domains.setAccountDomain(account.id, null);
    await this.deps.directory.changed(removed.domain);
  }


  private async check(row: CustomDomainRow): Promise<{ records: RecordCheck[]; problems: string[] }> {
    const { dns, settings } = this.deps;
    const problems: string[] = [];
    const pending = row.sslValidationRecords[0];
    const attempt = async (record: Omit<RecordCheck, 'seen' | 'ok'>, read: () => Promise<{ seen: string[]; ok: boolean }>): Promise<RecordCheck> => {
      try {
        return { ...record, ...(await read()) };
      } catch (err) {
        if (!(err instanceof DnsUnavailableError)) throw err;
        problems.push(`${record.name}: ${err.message}; checked again later`);
        return { ...record, seen: [], ok: false };
      }
    };
    const records = await Promise.all([
      attempt({ type: 'CNAME', name: row.domain, expected: settings.cnameTarget }, async () => {
        const chain = await dns.cnameChain(row.domain);
        if (chain.includes(settings.cnameTarget)) return { seen: chain, ok: true };
        if (chain.length) return { seen: chain, ok: false };
        // An apex cannot hold a CNAME: flattening or an A record to our address is as good.
        const [own, target] = await Promise.all([dns.addresses(row.domain), dns.addresses(settings.cnameTarget)]);
        return { seen: own, ok: own.length > 0 && own.some((address) => target.includes(address)) };
      }),
      attempt({ type: 'TXT', name: row.txtRecordName, expected: row.txtRecordValue }, async () => {
        const seen = await dns.txt(row.txtRecordName);
        return { seen, ok: seen.includes(row.txtRecordValue) };
      }),
      attempt({ type: 'TXT', name: pending?.txt_name ?? acmeChallengeName(row.domain), expected: pending?.txt_value ?? '' }, async () => {
        const seen = await dns.txt(pending?.txt_name ?? acmeChallengeName(row.domain));
        return { seen, ok: Boolean(pending) && seen.includes(pending!.txt_value) };
      }),
    ]);
    try {
      const caa = await dns.caa(row.domain);
      const issuers = caa?.records.filter((r) => r.issue !== undefined).map((r) => r.issue!.split(';')[0]!.trim()) ?? [];
      if (caa && issuers.length && !issuers.includes(settings.caaIdentity)) {
        problems.push(`The CAA records of ${caa.owner} do not allow our certificate authority: add ${caa.owner}. CAA 0 issue "${settings.caaIdentity}"`);
      }
    } catch (err) {
      if (!(err instanceof DnsUnavailableError)) throw err;
      problems.push(`CAA of ${row.domain}: ${err.message}; checked again later`);
    }
    return { records, problems };
  }

  private view(row: CustomDomainRow) {
    return {
      customDomain: row.domain,
      customDomainStatus: row.status,
      providerStatus: row.providerStatus,
      sslStatus: row.sslStatus,
      txtRecordName: row.txtRecordName,
      txtRecordValue: row.txtRecordValue,
      sslValidationRecords: row.sslValidationRecords,
      cnameTarget: this.deps.settings.cnameTarget,
      dnsChecks: { cname: false, txt_val: false, ssl_val_0: false, ...row.dnsChecks },
      // What the last check saw against what is expected, and what stood in the way.
      records: (row.lastCheck?.records ?? []) as RecordCheck[],
      problems: row.lastCheck?.problems ?? [],
      lastCheckedAt: row.lastCheckedAt?.toISOString() ?? null,
      nextCheckAt: row.nextCheckAt?.toISOString() ?? null,
      certificateExpiresAt: row.certificateExpiresAt?.toISOString() ?? null,
    };
  }

  private assertPro(account: Principal) {
    if (!this.deps.plans.of(account.plan).customDomain) throw AppError.forbidden('Custom domains require a Pro plan');
  }
}
