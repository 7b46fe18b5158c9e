import { AppError } from '../../errors.js';
import { type Principal, principalOf } from '../../principal.js';
import { isId } from '../folders/folder.service.js';
import type { ConnectedClient, OAuthConnectionRepository } from '../../repositories/oauth-connection.repository.js';
import type { OAuthModelRepository, OAuthModelPayload } from '../../repositories/oauth-model.repository.js';
import { type Scope, scopesIn } from '../../scopes.js';

/** An assistant connected to the account, as `GET /api/user/connections` lists it. */
export interface Connection {
  clientId: string;
  clientName: string | null;
  clientUri: string | null;
  scopes: Scope[];
  connectedAt: string;
  lastUsedAt: string | null;
}

// Registrations no grant ever used are deleted after a day; last use is written at most once a minute.
const UNUSED_CLIENT_TTL_MS = 24 * 60 * 60 * 1000;
const LAST_USED_RESOLUTION_MS = 60_000;
// Connections whose last use this process remembers; forgotten all at once past this many.
const MAX_NOTED = 10_000;

/**
 * The assistants an account let in: recorded at consent, listed with what their live grants allow,
 * and disconnected at once (every grant, code and token of that client for that account).
 */
export class ConnectionService {
  private readonly lastNoted = new Map<string, number>();

  constructor(
    private readonly deps: {
      connections: OAuthConnectionRepository;
      models: OAuthModelRepository;
      /** The MCP resource whose scopes a grant holds. */
      resource: string;
    },
  ) {}

  async list(principal: Principal): Promise<Connection[]> {
    const [rows, grants] = await Promise.all([this.deps.connections.list(principal.id), this.deps.models.grantsOf(principal.id)]);
    const scopes = new Map<string, Set<Scope>>();
    for (const grant of grants) {
      const held = scopes.get(grant.clientId) ?? new Set<Scope>();
      for (const scope of this.scopesOf(grant.payload)) held.add(scope);
      scopes.set(grant.clientId, held);
    }
    // A connection whose grants have all lapsed can do nothing: it is not listed.
    return rows
      .filter((row) => scopes.has(row.clientId))
      .map((row) => ({
        clientId: row.clientId,
        clientName: row.clientName,
        clientUri: row.clientUri,
        scopes: scopesIn([...scopes.get(row.clientId)!].join(' ')),
        connectedAt: row.connectedAt.toISOString(),
        lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
      }));
  }

  /** Revokes every grant and token of the client for this account; 404 if it was not connected. */
  async disconnect(principal: Principal, clientId: string): Promise<void> {
    this.lastNoted.delete(`${principal.id} ${clientId}`);
    const hadGrants = (await this.deps.models.grantsOf(principal.id, clientId)).length > 0;
    await this.deps.models.destroyClientGrants(principal.id, clientId);
    const hadConnection = await this.deps.connections.delete(principal.id, clientId);
    if (!hadGrants && !hadConnection) throw AppError.notFound('No such connection');
  }

  /** The account approved the client (consent): it is listed from now on. */
  async connected(principal: Principal, client: ConnectedClient): Promise<void> {
    this.lastNoted.delete(`${principal.id} ${client.clientId}`);
    await this.deps.connections.upsert(principal.id, client);
  }

  /**
   * Who a token of the client acts for, checked on every use with its grant (one query): undefined
   * when the grant is gone (a disconnect) or the account is banned or deleted. Notes the use for the
   * connections list.
   */
  async principalFor(accountId: string, clientId: string, grantId: string): Promise<Principal | undefined> {
    if (!isId(accountId)) return undefined;
    const account = await this.deps.models.liveGrantAccount(grantId, accountId, clientId);
    if (account?.status !== 'active') return undefined;
    await this.noteUse(accountId, clientId);
    return principalOf(account);
  }

  /** lastUsedAt is written at most once a minute: this process skips even asking within that minute. */
  private async noteUse(accountId: string, clientId: string): Promise<void> {
    const key = `${accountId} ${clientId}`;
    const now = Date.now();
    if ((this.lastNoted.get(key) ?? 0) > now - LAST_USED_RESOLUTION_MS) return;
    if (this.lastNoted.size >= MAX_NOTED) this.lastNoted.clear();
    this.lastNoted.set(key, now);
    await this.deps.connections.touch(accountId, clientId, LAST_USED_RESOLUTION_MS);
  }

  /** Scheduled: drops expired codes, tokens and sessions, and registrations nobody ever used. */
  async prune(now = new Date()): Promise<{ expired: number; unusedClients: number }> {
    const expired = await this.deps.models.prune(now);
    const unusedClients = await this.deps.models.pruneUnusedClients(new Date(now.getTime() - UNUSED_CLIENT_TTL_MS));
    return { expired, unusedClients };
  }

  private scopesOf(grant: OAuthModelPayload): Scope[] {
    const resources = (grant.resources ?? {}) as Record<string, string>;
    return scopesIn(resources[this.deps.resource]);
  }
}
