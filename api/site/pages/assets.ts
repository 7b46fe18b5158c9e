// The site's own stylesheet and script, served from /assets so pages need no inline code
// (the pages' CSP allows scripts from 'self' only).

export const SITE_CSS = `
body { font-family: system-ui, sans-serif; margin: 0; color: #1d2330; background: #f6f7fb; }
header { display: flex; justify-content: space-between; align-items: center; padding: 12px 24px; background: #1d2330; }
header a, header button { color: #fff; text-decoration: none; margin-left: 12px; background: none; border: 0; font: inherit; cursor: pointer; }
.brand { font-weight: 700; margin-left: 0; }
main { max-width: 720px; margin: 32px auto; padding: 0 16px; }
form { display: grid; gap: 12px; background: #fff; padding: 20px; border-radius: 8px; box-shadow: 0 1px 3px #0002; }
input, select, button.primary { font: inherit; padding: 8px; }
button.primary { background: #3056d3; color: #fff; border: 0; border-radius: 6px; cursor: pointer; }
.status { min-height: 1.5em; }
.error { color: #b00020; }
.warning { background: #fff4d6; border-left: 4px solid #e0a100; padding: 8px 12px; }
fieldset { border: 0; padding: 0; display: grid; gap: 8px; }
.scope { display: flex; gap: 8px; align-items: baseline; }
.actions { display: flex; gap: 12px; }
.client { display: flex; gap: 12px; align-items: center; }
.connection { margin-bottom: 12px; }
.connection form { display: inline; padding: 0; box-shadow: none; background: none; }
code { background: #eef; padding: 2px 6px; border-radius: 4px; word-break: break-all; }
table { width: 100%; border-collapse: collapse; background: #fff; }
td, th { padding: 6px 8px; border-bottom: 1px solid #e3e5ee; text-align: left; }
`;

export const SITE_JS = `
'use strict';
const $ = (sel) => document.querySelector(sel);
const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');

// Proof-of-work captcha (ALTCHA, SHA-256): find n with sha256(salt + n) == challenge.
async function solveCaptcha() {
  const c = await (await fetch('/api/auth/captcha', { cache: 'no-store' })).json();
  const encoder = new TextEncoder();
  for (let n = 0; n <= c.maxnumber; n++) {
    const digest = hex(await crypto.subtle.digest('SHA-256', encoder.encode(c.salt + n)));
    if (digest === c.challenge) {
      const payload = { algorithm: c.algorithm, challenge: c.challenge, number: n, salt: c.salt, signature: c.signature };
      return btoa(JSON.stringify(payload));
    }
  }
  throw new Error('Could not solve the captcha');
}

function show(el, text, isError) {
  el.textContent = text;
  el.classList.toggle('error', Boolean(isError));
}

async function postJson(url, body) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error || 'Request failed (' + res.status + ')');
  return data;
}

function authForm(form, url, fields) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const status = form.querySelector('.status');
    try {
      show(status, 'Checking you are human…');
      const body = { captchaToken: await solveCaptcha() };
      for (const name of fields) body[name] = form.elements[name].value;
      show(status, 'Signing in…');
      await postJson(url, body);
      location.href = form.dataset.next || '/account';
    } catch (err) {
      show(status, err.message, true);
    }
  });
}

document.addEventListener('DOMContentLoaded', () => {
  const login = $('#login-form');
  if (login) authForm(login, '/api/auth/login', ['username', 'password']);
  const register = $('#register-form');
  if (register) authForm(register, '/api/auth/register', ['username', 'email', 'password']);

  const logout = $('#logout');
  if (logout) logout.addEventListener('click', async () => {
    await fetch('/api/auth/logout', { method: 'POST', credentials: 'same-origin' });
    location.href = '/';
  });
});
`;

// The site's icon: linked from every page, so browsers never ask for /favicon.ico.
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2f4fc2"/><path d="M9 21l5-6 4 4 3-3 4 5z" fill="#fff"/><circle cx="12" cy="11" r="2.5" fill="#fff"/></svg>`;
