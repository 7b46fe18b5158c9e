import { solveChallenge } from 'altcha-lib/v1';
import type { ApiClient } from './api-client.js';

/** Fetches a challenge and does the real proof of work, as the sign-in page does in the browser. */
export async function solveCaptcha(api: ApiClient): Promise<string> {
  const { body: challenge } = await api.get('/api/auth/captcha');
  const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber).promise;
  if (!solution) throw new Error('captcha not solved');
  const payload = { algorithm: challenge.algorithm, challenge: challenge.challenge, number: solution.number, salt: challenge.salt, signature: challenge.signature };
  return Buffer.from(JSON.stringify(payload)).toString('base64');
}
