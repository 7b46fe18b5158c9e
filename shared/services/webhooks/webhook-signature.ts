import { createHmac, randomBytes } from 'node:crypto';

// Standard Webhooks (standardwebhooks.com): the secret is "whsec_" + base64 of its bytes.
const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** The webhook-signature header: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the secret's bytes. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}
