import { Bot, Check, TriangleAlert, X } from 'lucide';
import { Icon } from './icon.js';
import { Page, type PageFrame } from './page.js';

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

/**
 * The OAuth consent step: who asks, where the answer goes, and each scope with a box the user may
 * untick. A plain form post: it works without script.
 */
export function ConsentPage({ frame, view }: { frame: PageFrame; view: ConsentView }) {
  return (
    <Page frame={frame}>
      <section class="consent card" aria-labelledby="consent-title">
        <div class="consent-client">
          {view.logoUri ? (
            <img class="client-logo" src={view.logoUri} alt="" width={48} height={48} />
          ) : (
            <span class="client-logo">
              <Icon icon={Bot} size={28} />
            </span>
          )}
          <div>
            <h1 id="consent-title">Connect {view.clientName}?</h1>
            <p class="consent-who">
              <strong id="client-name">{view.clientName}</strong>
              {view.clientHost && (
                <>
                  {' '}
                  from <strong id="client-host">{view.clientHost}</strong>
                </>
              )}
            </p>
            {!view.verified && <p class="muted consent-unverified">This app registered itself; its name is not verified.</p>}
          </div>
        </div>
        <p>
          Signed in as <strong>{view.username}</strong>. The app never sees your password or API key, and you can disconnect it at any time from your{' '}
          <a href="/dashboard/settings">dashboard settings</a>.
        </p>
        <p>
          After you answer you return to <strong id="redirect-host">{view.redirectHost}</strong>.
        </p>
        {view.redirectIsLocal && (
          <p class="notice" id="local-warning">
            <Icon icon={TriangleAlert} /> This app runs on a computer (localhost), not a website. Allow it only if you started it yourself just now.
          </p>
        )}
        <form method="post" action={view.action} id="consent-form" class="form">
          {view.scopes.length ? (
            <fieldset>
              <legend>It asks to:</legend>
              <ul class="consent-scopes">
                {view.scopes.map((scope) => (
                  <li key={scope.name}>
                    <label class="consent-scope">
                      <input type="checkbox" name="scope" value={scope.name} checked />
                      <span>{scope.words}</span>
                      <code>{scope.name}</code>
                    </label>
                  </li>
                ))}
              </ul>
            </fieldset>
          ) : (
            <p>It asks for no access to your files.</p>
          )}
          <div class="row consent-actions">
            <button class="primary" type="submit" name="decision" value="allow" id="allow">
              <Icon icon={Check} />
              Allow
            </button>
            <button type="submit" name="decision" value="deny" id="deny">
              <Icon icon={X} />
              Deny
            </button>
          </div>
        </form>
      </section>
    </Page>
  );
}

/** A sign-in that cannot go on (expired, or the account may not connect apps): why, and what to do. */
export function InteractionErrorPage({ frame, message }: { frame: PageFrame; message: string }) {
  return (
    <Page frame={frame}>
      <section class="error-page card" aria-labelledby="error-title">
        <span class="error-icon">
          <Icon icon={TriangleAlert} size={40} />
        </span>
        <h1 id="error-title">This sign-in cannot go on</h1>
        <p class="error-message">{message}</p>
        <p class="muted">Go back to the app you came from and start connecting again.</p>
      </section>
    </Page>
  );
}
