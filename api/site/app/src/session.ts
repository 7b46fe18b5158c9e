// Who is signed in, as the dashboard's page says (the server writes it on #app): the header and
// the Pro-only parts read it without asking the API.

export interface Session {
  username: string;
  plan: 'free' | 'pro';
}

let current: Session | undefined;

export function session(): Session {
  if (!current) {
    const data = document.getElementById('app')?.dataset ?? {};
    current = { username: data.username ?? '', plan: data.plan === 'pro' ? 'pro' : 'free' };
  }
  return current;
}
