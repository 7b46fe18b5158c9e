import { html, type SafeHtml } from '../site/pages/html.js';

export interface ConsentView {
  action: string;
  username: string;
  clientName: string;
  /** Where the client's identity comes from: its metadata document's host, or what it registered (unverified). */
  clientHost: string | null;
  verified: boolean;
  logoUri: string | null;
  redirectHost: string;
  redirectIsLocal: boolean;
  scopes: { name: string; words: string }[];
}

/** The consent step: who asks, where the answer goes, and each scope with a box the user may untick. */
export function consentPage(view: ConsentView): SafeHtml {
  const scopes = view.scopes.map(
    (scope) => html`<label class="scope"><input type="checkbox" name="scope" value="${scope.name}" checked> ${scope.words} <code>${scope.name}</code></label>`,
  );
  return html`<h1>Connect ${view.clientName}?</h1>
<section class="client">
  ${view.logoUri ? html`<img class="client-logo" src="${view.logoUri}" alt="" width="48" height="48">` : ''}
  <p><strong id="client-name">${view.clientName}</strong>${view.clientHost ? html` from <strong id="client-host">${view.clientHost}</strong>` : ''}
  ${view.verified ? '' : html`<br><small>This app registered itself; its name is not verified.</small>`}</p>
</section>
<p>Signed in as <strong>${view.username}</strong>. The app never sees your password or API key, and you can disconnect it at any time from your account page.</p>
<p>After you answer you return to <strong id="redirect-host">${view.redirectHost}</strong>.</p>
${view.redirectIsLocal ? html`<p class="warning" id="local-warning">This app runs on a computer (localhost), not a website. Allow it only if you started it yourself just now.</p>` : ''}
<form method="post" action="${view.action}" id="consent-form">
  ${view.scopes.length ? html`<fieldset><legend>It asks to:</legend>${scopes}</fieldset>` : html`<p>It asks for no access to your files.</p>`}
  <div class="actions">
    <button class="primary" type="submit" name="decision" value="allow" id="allow">Allow</button>
    <button type="submit" name="decision" value="deny" id="deny">Deny</button>
  </div>
</form>`;
}

/** A sign-in that cannot go on (expired, or the account may not connect apps). */
export function interactionErrorPage(message: string): SafeHtml {
  return html`<h1>This sign-in cannot go on</h1>
<p class="error">${message}</p>
<p>Go back to the app you came from and start connecting again.</p>`;
}
