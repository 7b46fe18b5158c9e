/** The sign-in captcha (ALTCHA, SHA-256 proof of work): finds n with sha256(salt + n) == challenge. */
export async function solveCaptcha(): Promise<string> {
  const res = await fetch('/api/auth/captcha', { cache: 'no-store' });
  const c = (await res.json()) as { algorithm: string; challenge: string; maxnumber: number; salt: string; signature: string };
  const encoder = new TextEncoder();
  for (let n = 0; n <= c.maxnumber; n++) {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(c.salt + n)));
    if (hex(digest) === c.challenge) {
      return btoa(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: n, salt: c.salt, signature: c.signature }));
    }
  }
  throw new Error('Could not solve the captcha');
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
