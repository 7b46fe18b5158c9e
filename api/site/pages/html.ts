const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** HTML that is already safe to insert (produced by `html` or `raw`). */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Tagged template that escapes every interpolation unless it is SafeHtml (or an array of it). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    const parts = Array.isArray(value) ? value : [value];
    out += parts.map((v) => (v instanceof SafeHtml ? v.value : escapeHtml(v ?? ''))).join('');
    out += strings[i + 1]!;
  });
  return new SafeHtml(out);
}

export function layout(title: string, body: SafeHtml, signedIn = false, head: SafeHtml = html``): string {
  return `<!DOCTYPE html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Hosted Files</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/site.css">
<script src="/assets/site.js" defer></script>
${head}
</head>
<body>
<header><a href="/" class="brand">Hosted Files</a>
<nav>${signedIn ? html`<a href="/dashboard">Dashboard</a> <a href="/account">Account</a> <button id="logout" type="button">Sign out</button>` : html`<a href="/login">Sign in</a> <a href="/register">Register</a>`}</nav>
</header>
<main>${body}</main>
</body>
</html>`}`;
}
