import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import * as acme from 'acme-client';
import type { SecretBox } from '../../crypto.js';
import type { CustomDomainRepository } from '../../repositories/custom-domain.repository.js';

export interface AcmeSettings {
  directoryUrl: string;
  email?: string | undefined;
  /** PEM file of a CA to trust for the ACME server (a private CA; Pebble in tests) */
  caFile?: string | undefined;
}

/** A DNS-01 order in progress: what the domain's row keeps between "add" and "verify". */
export interface PendingOrder {
  orderUrl: string;
  /** the value the customer publishes at `_acme-challenge.{domain}` */
  txtValue: string;
}

export interface IssuedCertificate {
  certificatePem: string;
  privateKeyPem: string;
  expiresAt: Date;
}

/** The challenge's TXT name for a domain (DNS-01). */
export const acmeChallengeName = (domain: string) => `_acme-challenge.${domain}`;

/**
 * Certificates from an ACME CA (acme-client) under one service account, whose key is made once and
 * stored sealed. DNS-01 for the first certificate (the customer publishes the TXT with the others),
 * HTTP-01 for renewals (their CNAME points at us).
 */
export class AcmeIssuer {
  private client: Promise<acme.Client> | undefined;

  constructor(
    private readonly settings: AcmeSettings,
    private readonly domains: CustomDomainRepository,
    private readonly box: SecretBox,
  ) {
    if (settings.caFile) {
      // acme-client talks through axios; a private CA is trusted for it alone.
      acme.axios.defaults.httpsAgent = new Agent({ ca: readFileSync(settings.caFile) });
    }
    // Rate limits and Retry-After are the job scheduler's to wait out, not a worker's.
    const defaults = acme.axios.defaults as { acmeSettings?: Record<string, number> };
    defaults.acmeSettings = { ...defaults.acmeSettings, retryMaxAttempts: 0 };
  }

  /** Opens an order for `domain` and returns what the customer must publish for DNS-01. */
  async startDns01(domain: string): Promise<PendingOrder> {
    const client = await this.account();
    let order = await client.createOrder({ identifiers: [{ type: 'dns', value: domain }] });
    let authorization = await this.authorizationOf(client, order);
    // An authorization the CA reuses (still valid) shows only the challenge that proved it. A DNS-01 one keeps its
    // TXT value; one proved by HTTP-01 (a renewal) has none to show, so it is given up and the next order starts afresh.
    if (authorization.status === 'valid' && !authorization.challenges.some((c) => c.type === 'dns-01')) {
      await client.deactivateAuthorization(authorization);
      order = await client.createOrder({ identifiers: [{ type: 'dns', value: domain }] });
      authorization = await this.authorizationOf(client, order);
    }
    const challenge = challengeOf(authorization, 'dns-01');
    return { orderUrl: order.url, txtValue: await client.getChallengeKeyAuthorization(challenge) };
  }

  /** Completes the DNS-01 challenge of an open order (its TXT is published) and fetches the certificate. */
  async finishDns01(domain: string, pending: PendingOrder): Promise<IssuedCertificate> {
    const client = await this.account();
    const order = await client.getOrder({ url: pending.orderUrl } as acme.Order);
    if (order.status === 'pending') {
      const challenge = challengeOf(await this.authorizationOf(client, order), 'dns-01');
      await client.completeChallenge(challenge);
      await client.waitForValidStatus(challenge);
    }
    return this.finalize(client, order, domain);
  }

  /** A new certificate over HTTP-01: `publish` must serve the key authorization at the token's path. */
  async issueHttp01(domain: string, publish: (token: string, keyAuthorization: string) => Promise<() => Promise<void>>): Promise<IssuedCertificate> {
    const client = await this.account();
    const order = await client.createOrder({ identifiers: [{ type: 'dns', value: domain }] });
    const authorization = await this.authorizationOf(client, order);
    // The CA may reuse an authorization it still holds valid (RFC 8555 §7.1.3): nothing to prove then.
    if (authorization.status !== 'valid') {
      const challenge = challengeOf(authorization, 'http-01');
      const unpublish = await publish(challenge.token, await client.getChallengeKeyAuthorization(challenge));
      try {
        await client.completeChallenge(challenge);
        await client.waitForValidStatus(challenge);
      } finally {
        await unpublish();
      }
    }
    return this.finalize(client, order, domain);
  }

  private async finalize(client: acme.Client, order: acme.Order, domain: string): Promise<IssuedCertificate> {
    const [key, csr] = await acme.crypto.createCsr({ commonName: domain, altNames: [domain] }, await acme.crypto.createPrivateEcdsaKey('P-256'));
    const finalized = await client.finalizeOrder(order, csr);
    const certificatePem = await client.getCertificate(finalized);
    const { notAfter } = acme.crypto.readCertificateInfo(certificatePem);
    return { certificatePem, privateKeyPem: key.toString(), expiresAt: notAfter };
  }

  /** The one authorization of a single-name order. */
  private async authorizationOf(client: acme.Client, order: acme.Order): Promise<acme.Authorization> {
    const [authorization] = await client.getAuthorizations(order);
    if (!authorization) throw new Error('The ACME server sent an order without an authorization');
    return authorization;
  }

  /** The service's ACME account (registered once per process; the CA recognises the stored key). */
  private account(): Promise<acme.Client> {
    this.client ??= (async () => {
      const sealed = await this.domains.acmeAccountKey(this.settings.directoryUrl, async () =>
        this.box.encrypt((await acme.crypto.createPrivateEcdsaKey('P-256')).toString()),
      );
      const client = new acme.Client({ directoryUrl: this.settings.directoryUrl, accountKey: this.box.decrypt(sealed) });
      const contact = this.settings.email ? { contact: [`mailto:${this.settings.email}`] } : undefined;
      // A key the CA knows (another process, a restart) is looked up: an update that changes nothing is refused by some CAs.
      const known = await client.createAccount({ onlyReturnExisting: true }).then(
        () => true,
        () => false,
      );
      if (!known) await client.createAccount({ termsOfServiceAgreed: true, ...contact });
      else if (contact) await client.updateAccount(contact);
      return client;
    })().catch((err: unknown) => {
      this.client = undefined;
      throw err;
    });
    return this.client;
  }
}

function challengeOf(authorization: acme.Authorization, type: 'dns-01' | 'http-01') {
  const challenge = authorization.challenges.find((c) => c.type === type);
  if (!challenge) throw new Error(`The ACME server offers no ${type} challenge`);
  return challenge;
}
