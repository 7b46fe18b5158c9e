import { Router } from '@koa/router';
import { h } from 'preact';
import type Provider from 'oidc-provider';
import type { InteractionResults } from 'oidc-provider';
import { AppError } from '../../shared/errors.js';
import { SCOPES, scopesIn } from '../../shared/scopes.js';
import { mcpResourceOf } from '../../shared/services/assistants/mcp-resource.js';
import { siteAccountOf } from '../middleware/auth.middleware.js';
import type { RouteDeps } from '../routes/route-deps.js';
import { refuseCrossSite } from '../middleware/cross-site.guard.js';
import type { SitePages } from '../site/pages/site-pages.js';
import { ConsentPage, InteractionErrorPage } from '../site/views/consent-page.js';
import type { AppContext, AppState } from '../state.js';
import { INTERACTION_PATH, LOOPBACK_HOSTS } from './provider.js';

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;
type Client = NonNullable<Awaited<ReturnType<Provider['Client']['find']>>>;

/**
 * The authorization server's pages: sign-in (through the site's own, which returns here) and
 * consent. The provider's interaction cookie binds each step to the browser that started it.
 */
export function interactionRoutes(provider: Provider, { services, config }: RouteDeps, pages: SitePages) {
  const router = new Router<AppState>({ prefix: INTERACTION_PATH });
  const resource = mcpResourceOf(config.baseUrl);

  const signedIn = (ctx: AppContext) => siteAccountOf(ctx, services.sessions);

  /** The interaction this browser is in, or a page saying it is over. */
  const interactionOf = async (ctx: AppContext): Promise<Interaction | undefined> => {
    try {
      const interaction = await provider.interactionDetails(ctx.req, ctx.res);
      if (interaction.uid === ctx.params.uid) return interaction;
    } catch (err) {
      // The provider's own refusals (no interaction cookie, expired) carry a 4xx status.
      const status = (err as { status?: unknown }).status;
      if (typeof status !== 'number' || status >= 500) throw err;
    }
    const message = 'This sign-in has expired or was opened in another browser.';
    await pages.render(ctx, { title: 'Sign-in expired', status: 400, view: (frame) => h(InteractionErrorPage, { frame, message }) });
    return undefined;
  };

  router.get('/:uid', async (ctx) => {
    const interaction = await interactionOf(ctx);
    if (!interaction) return;
    const account = await signedIn(ctx);
    if (!account) return ctx.redirect(`/login?next=${encodeURIComponent(ctx.path)}`);
    const client = await provider.Client.find(String(interaction.params.client_id));
    if (!client) throw AppError.notFound('Unknown client');
    if (account.status !== 'active') {
      const message = 'This account is banned and cannot connect apps.';
      return pages.render(ctx, { title: 'Connect an app', view: (frame) => h(InteractionErrorPage, { frame, message }) });
    }
    const redirect = new URL(redirectUriOf(interaction, client));
    const view = {
      action: ctx.path,
      username: account.username,
      clientName: client.clientName ?? client.clientId,
      clientHost: clientHostOf(client),
      verified: isMetadataDocumentClient(client),
      logoUri: client.logoUri ?? null,
      redirectHost: redirect.protocol.startsWith('http') ? redirect.host : `${redirect.protocol}//`,
      redirectIsLocal: LOOPBACK_HOSTS.has(redirect.hostname),
      scopes: scopesIn(String(interaction.params.scope ?? '')).map((name) => ({ name, words: SCOPES[name] })),
    };
    await pages.render(ctx, { title: 'Connect an app', formTargets: [formTargetOf(redirect)], view: (frame) => h(ConsentPage, { frame, view }) });
  });

  router.post('/:uid', async (ctx) => {
    // The form is this origin's own; a post from anywhere else is refused before anything is read.
    refuseCrossSite(ctx, [new URL(config.baseUrl).origin, new URL(config.siteUrl).origin]);
    const interaction = await interactionOf(ctx);
    if (!interaction) return;
    const account = await signedIn(ctx);
    if (!account) return ctx.redirect(`/login?next=${encodeURIComponent(ctx.path)}`);
    const form = (ctx.request.body ?? {}) as { decision?: string; scope?: string | string[] };
    const requested = scopesIn(String(interaction.params.scope ?? ''));
    const ticked = new Set([form.scope ?? []].flat());
    const allowed = requested.filter((scope) => ticked.has(scope));

    let result: InteractionResults;
    if (form.decision !== 'allow' || account.status !== 'active' || (requested.length > 0 && allowed.length === 0)) {
      result = { error: 'access_denied', error_description: 'The user did not allow access' };
    } else {
      const client = await provider.Client.find(String(interaction.params.client_id));
      if (!client) throw AppError.notFound('Unknown client');
      const grant = new provider.Grant({ accountId: account.id, clientId: client.clientId });
      const oidcScopes = String(interaction.params.scope ?? '')
        .split(' ')
        .filter((scope) => scope === 'openid' || scope === 'offline_access');
      if (oidcScopes.length) grant.addOIDCScope(oidcScopes.join(' '));
      // The MCP scopes belong to the resource only; what the user unticked is refused, not left pending.
      if (requested.length) grant.rejectOIDCScope(requested.join(' '));
      if (allowed.length) grant.addResourceScope(resource, allowed.join(' '));
      const unticked = requested.filter((scope) => !ticked.has(scope));
      if (unticked.length) grant.rejectResourceScope(resource, unticked.join(' '));
      const grantId = await grant.save();
      await services.connections.connected(account, { clientId: client.clientId, clientName: client.clientName ?? null, clientUri: client.clientUri ?? null });
      result = { login: { accountId: account.id }, consent: { grantId } };
    }
    const to = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
    ctx.status = 303;
    ctx.redirect(to);
  });

  return router;
}

function redirectUriOf(interaction: Interaction, client: Client): string {
  return String(interaction.params.redirect_uri ?? client.redirectUris?.[0] ?? '');
}

/** What the consent form's CSP must let the browser reach: the callback's origin (any port on loopback) or scheme. */
function formTargetOf(redirect: URL): string {
  if (redirect.protocol !== 'http:' && redirect.protocol !== 'https:') return redirect.protocol;
  if (LOOPBACK_HOSTS.has(redirect.hostname)) return `${redirect.protocol}//${redirect.hostname}:*`;
  return redirect.origin;
}

/** Clients identified by an https metadata document are who their URL says. */
function isMetadataDocumentClient(client: Client): boolean {
  return /^https:\/\//.test(client.clientId);
}

function clientHostOf(client: Client): string | null {
  const source = isMetadataDocumentClient(client) ? client.clientId : client.clientUri;
  return source && URL.canParse(source) ? new URL(source).host : null;
}
