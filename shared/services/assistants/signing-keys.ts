import { generateKeyPairSync, hash, type JsonWebKey } from 'node:crypto';
import type { SecretBox } from '../../crypto.js';
import type { OAuthModelRepository } from '../../repositories/oauth-model.repository.js';

/** A private ES256 JWK as oidc-provider's `jwks.keys` takes it. */
export interface SigningJwk extends JsonWebKey {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  d: string;
  kid: string;
  alg: 'ES256';
  use: 'sig';
}

const KIND = 'SigningKey';
const ID = 'current';

/**
 * The authorization server's signing key: made by the first process that starts, sealed with the
 * SECRET_KEY, and the same for every process after it. Processes starting together each make one,
 * only the first insert lands, and all read back that one.
 */
export async function loadSigningKey(models: OAuthModelRepository, box: SecretBox): Promise<SigningJwk> {
  let stored = await models.find(KIND, ID);
  if (!stored) {
    await models.insertIfAbsent(KIND, ID, seal(newSigningKey(), box));
    stored = await models.find(KIND, ID);
  }
  const { kid, sealed: secret } = (stored?.payload ?? {}) as { kid?: string; sealed?: string };
  if (!kid || !secret) throw new Error('The stored OAuth signing key is missing or malformed');
  try {
    return JSON.parse(box.decrypt(secret)) as SigningJwk;
  } catch (err) {
    throw new Error(`The OAuth signing key ${kid} cannot be opened: was SECRET_KEY changed?`, { cause: err });
  }
}

function newSigningKey(): SigningJwk {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' }) as SigningJwk;
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, d: jwk.d, kid: thumbprint(jwk), alg: 'ES256', use: 'sig' };
}

/** RFC 7638 JWK thumbprint: stable for the key, so a kid never names two keys. */
function thumbprint({ crv, kty, x, y }: SigningJwk): string {
  return hash('sha256', JSON.stringify({ crv, kty, x, y }), 'base64url');
}

/** Only the kid is readable in the row; the key itself is sealed. */
function seal(jwk: SigningJwk, box: SecretBox) {
  return { kid: jwk.kid, sealed: box.encrypt(JSON.stringify(jwk)) };
}
