import { solveCaptcha } from './captcha.js';

/**
 * Sends the sign-in and registration forms (AuthPages: `data-auth` is the endpoint): the captcha
 * first, then the fields as JSON; success goes to `data-next`, a refusal is said in the form.
 */
export function enhanceAuthForms(): void {
  for (const form of document.querySelectorAll<HTMLFormElement>('form[data-auth]')) {
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void send(form);
    });
  }
}

async function send(form: HTMLFormElement) {
  const status = form.querySelector<HTMLElement>('.status')!;
  const button = form.querySelector<HTMLButtonElement>('button[type=submit]')!;
  const say = (text: string, error = false) => {
    status.textContent = text;
    status.classList.toggle('error', error);
  };
  button.disabled = true;
  try {
    say('Checking you are human…');
    const body: Record<string, string> = { captchaToken: await solveCaptcha() };
    for (const input of form.querySelectorAll<HTMLInputElement>('input[name]')) body[input.name] = input.value;
    say(form.id === 'register-form' ? 'Creating your account…' : 'Signing in…');
    const res = await fetch(form.dataset.auth!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      credentials: 'same-origin',
    });
    const data = (await res.json().catch(() => ({}))) as { error?: string };
    if (!res.ok) throw new Error(data.error ?? `Request failed (${res.status})`);
    location.assign(form.dataset.next || '/dashboard');
  } catch (err) {
    say((err as Error).message, true);
    button.disabled = false;
  }
}
