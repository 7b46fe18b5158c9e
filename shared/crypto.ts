import { createCipheriv, createDecipheriv, createHmac, hash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** Lookup hash for high-entropy secrets (API keys, tokens): fast and deterministic is right here. */
export function sha256(value: string): string {
  // The one-shot form: a Hash object per call costs more than hashing a key of this size.
  return hash('sha256', value, 'hex');
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Unbiased base62 string (rejection sampling). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function safeEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

/** Encrypts and signs with keys derived from SECRET_KEY; one instance per process. */
export class SecretBox {
  private readonly encKey: Buffer;
  private readonly macKey: Buffer;

  constructor(secret: string) {
    this.encKey = Buffer.from(hkdfSync('sha256', secret, 'hfs', 'encryption', 32));
    this.macKey = Buffer.from(hkdfSync('sha256', secret, 'hfs', 'signing', 32));
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.encKey, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  decrypt(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('Unknown sealed secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.encKey, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  sign(value: string): string {
    return createHmac('sha256', this.macKey).update(value).digest('base64url');
  }

  verify(value: string, signature: string): boolean {
    return safeEqual(this.sign(value), signature);
  }
}
