import type { Redis } from 'ioredis';

// An ACME validation takes seconds; a token outlives it only briefly.
const TOKEN_TTL_SECONDS = 600;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * HTTP-01 key authorizations, in Redis so whichever web process the CA reaches can answer
 * `/.well-known/acme-challenge/{token}` while a worker renews.
 */
export class HttpChallenges {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** Publishes the answer for `token`; the returned function withdraws it. */
  async publish(token: string, keyAuthorization: string): Promise<() => Promise<void>> {
    await this.redis.set(this.key(token), keyAuthorization, 'EX', TOKEN_TTL_SECONDS);
    return async () => {
      await this.redis.del(this.key(token));
    };
  }

  async answer(token: string): Promise<string | null> {
    return TOKEN_SHAPE.test(token) ? this.redis.get(this.key(token)) : null;
  }

  private key(token: string) {
    return `${this.prefix}:acme-http:${token}`;
  }
}
