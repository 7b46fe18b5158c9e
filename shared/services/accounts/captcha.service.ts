import { createChallenge, verifySolution } from 'altcha-lib/v1';
import type { Redis } from 'ioredis';
import { sha256 } from '../../crypto.js';
import { AppError } from '../../errors.js';

const CHALLENGE_TTL_MS = 10 * 60 * 1000;

/**
 * Self-hosted proof-of-work captcha (ALTCHA, SHA-256): the browser finds a number whose hash with
 * the salt matches the signed challenge. A solution verifies again if replayed, so each one is
 * remembered in Redis until its challenge expires and accepted only once.
 */
export class CaptchaService {
  constructor(
    private readonly hmacKey: string,
    private readonly redis: Redis,
    private readonly prefix: string,
    /** the search space; the browser tries half of it on average */
    private readonly maxNumber: number,
  ) {}

  async challenge() {
    return createChallenge({
      hmacKey: this.hmacKey,
      maxnumber: this.maxNumber,
      expires: new Date(Date.now() + CHALLENGE_TTL_MS),
    });
  }

  /** Accepts a solved challenge (the base64 payload the browser sends as captchaToken) once. */
  async consume(token: unknown): Promise<void> {
    if (typeof token !== 'string' || token.length === 0 || token.length > 4096) {
      throw AppError.badRequest('captchaToken is required: solve the challenge of GET /api/auth/captcha');
    }
    // A payload it cannot even read is as wrong as a wrong solution.
    const valid = await verifySolution(token, this.hmacKey, true).catch(() => false);
    if (!valid) throw AppError.badRequest('The captcha solution is invalid or expired');
    const first = await this.redis.set(`${this.prefix}:captcha:${sha256(token)}`, '1', 'PX', CHALLENGE_TTL_MS, 'NX');
    if (first !== 'OK') throw AppError.badRequest('This captcha solution was already used');
  }
}
