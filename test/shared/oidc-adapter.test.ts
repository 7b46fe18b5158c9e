import { expect } from 'chai';
import { createPrivateKey, createPublicKey, randomUUID, sign, verify } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { connectPostgres, type DatabaseHandle } from '../../shared/db/client.js';
import { oauthModels } from '../../shared/db/oauth.schema.js';
import { randomHex, SecretBox } from '../../shared/crypto.js';
import { OAuthModelRepository } from '../../shared/repositories/oauth-model.repository.js';
import { OidcAdapter, oidcAdapterFactory } from '../../shared/services/assistants/oidc-adapter.js';
import { loadSigningKey } from '../../shared/services/assistants/signing-keys.js';
import { cloneDatabase } from '../helpers/engines.js';

const HOUR = 3600;

describe('oidc-provider storage on PostgreSQL', () => {
  let handle: DatabaseHandle;
  let databaseUrl: string | undefined;
  let models: OAuthModelRepository;
  let adapterFor: (kind: string) => OidcAdapter;

  before(async () => {
    ({ handle, url: databaseUrl } = await cloneDatabase());
    models = new OAuthModelRepository(handle.db);
    adapterFor = oidcAdapterFactory(models) as (kind: string) => OidcAdapter;
  });
  after(() => handle.close());

  const rowOf = async (kind: string, id: string) => {
    const [row] = await handle.db.select().from(oauthModels).where(and(eq(oauthModels.kind, kind), eq(oauthModels.id, id)));
    return row;
  };
  /** Moves a row's expiry into the past, as time passing would. */
  const expire = (kind: string, id: string) =>
    handle.db.update(oauthModels).set({ expiresAt: new Date(Date.now() - 1000) }).where(and(eq(oauthModels.kind, kind), eq(oauthModels.id, id)));
  const token = (extra: Record<string, unknown> = {}) => ({ jti: randomUUID(), clientId: 'client-1', accountId: 'alice', scope: 'openid', ...extra });

  describe('upsert and find', () => {
    it('finds what was stored, per kind, and nothing for an unknown id', async () => {
      const payload = token({ grantId: 'g-find', extra: { nested: ['a', 1] } });
      await adapterFor('AccessToken').upsert(payload.jti, payload, HOUR);
      expect(await adapterFor('AccessToken').find(payload.jti)).to.deep.equal(payload);
      expect(await adapterFor('RefreshToken').find(payload.jti)).to.equal(undefined);
      expect(await adapterFor('AccessToken').find(randomUUID())).to.equal(undefined);
    });

    it('replaces the payload and expiry of an existing id', async () => {
      const adapter = adapterFor('Session');
      const id = randomUUID();
      await adapter.upsert(id, { uid: 'u-replace', account: 'alice' }, 60);
      await adapter.upsert(id, { uid: 'u-replace', account: 'bob' }, 2 * HOUR);
      expect(await adapter.find(id)).to.deep.equal({ uid: 'u-replace', account: 'bob' });
      const row = await rowOf('Session', id);
      expect(row!.expiresAt!.getTime()).to.be.within(Date.now() + 2 * HOUR * 1000 - 5000, Date.now() + 2 * HOUR * 1000 + 1000);
    });

    it('stores rows without expiresIn (clients, signing key) with no expiry', async () => {
      const client = { client_id: 'registered-1', redirect_uris: ['http://127.0.0.1/callback'] };
      await adapterFor('Client').upsert('registered-1', client);
      expect((await rowOf('Client', 'registered-1'))!.expiresAt).to.equal(null);
      expect(await adapterFor('Client').find('registered-1')).to.deep.equal(client);
    });

    it('keeps rows the clock tolerance past expiresIn', async () => {
      const id = randomUUID();
      await oidcAdapterFactory(models, 15)('AuthorizationCode').upsert(id, token(), 60);
      const expiresAt = (await rowOf('AuthorizationCode', id))!.expiresAt!.getTime();
      expect(expiresAt).to.be.within(Date.now() + 75_000 - 5000, Date.now() + 75_000 + 1000);
    });
  });

  describe('expiry', () => {
    it('reads an expired row as not found by find, findByUid and findByUserCode', async () => {
      const session = randomUUID();
      await adapterFor('Session').upsert(session, { uid: 'u-expired' }, HOUR);
      const device = randomUUID();
      await adapterFor('DeviceCode').upsert(device, token({ userCode: 'EXPD-CODE' }), HOUR);
      await expire('Session', session);
      await expire('DeviceCode', device);
      expect(await adapterFor('Session').find(session)).to.equal(undefined);
      expect(await adapterFor('Session').findByUid('u-expired')).to.equal(undefined);
      expect(await adapterFor('DeviceCode').findByUserCode('EXPD-CODE')).to.equal(undefined);
    });

    it('an expired id can be stored again and is then found', async () => {
      const id = randomUUID();
      await adapterFor('Interaction').upsert(id, { uid: 'i-1' }, HOUR);
      await expire('Interaction', id);
      await adapterFor('Interaction').upsert(id, { uid: 'i-2' }, HOUR);
      expect(await adapterFor('Interaction').find(id)).to.deep.equal({ uid: 'i-2' });
    });
  });

  describe('findByUid and findByUserCode', () => {
    it('finds a Session by its uid and a DeviceCode by its user code, only within their kind', async () => {
      const sessionId = randomUUID();
      await adapterFor('Session').upsert(sessionId, { jti: sessionId, uid: 'uid-1', account: 'alice' }, HOUR);
      // An Interaction carries the uid of its session too; it must not answer for the Session.
      await adapterFor('Interaction').upsert(randomUUID(), { uid: 'uid-2' }, HOUR);
      expect(await adapterFor('Session').findByUid('uid-1')).to.deep.equal({ jti: sessionId, uid: 'uid-1', account: 'alice' });
      expect(await adapterFor('Session').findByUid('uid-2')).to.equal(undefined);
      expect(await adapterFor('Session').findByUid('nobody')).to.equal(undefined);

      const device = token({ userCode: 'ABCD-EFGH', params: { client_id: 'client-1' } });
      await adapterFor('DeviceCode').upsert(device.jti, device, 600);
      expect(await adapterFor('DeviceCode').findByUserCode('ABCD-EFGH')).to.deep.equal(device);
      expect(await adapterFor('DeviceCode').findByUserCode('ABCD-XXXX')).to.equal(undefined);
      expect(await adapterFor('AccessToken').findByUserCode('ABCD-EFGH')).to.equal(undefined);
    });
  });

  describe('consume', () => {
    it('adds consumed (epoch seconds) to what find returns, and keeps the first time', async () => {
      const adapter = adapterFor('AuthorizationCode');
      const code = token({ grantId: 'g-consume' });
      await adapter.upsert(code.jti, code, 60);
      expect(await adapter.find(code.jti)).to.not.have.property('consumed');
      const before = Math.floor(Date.now() / 1000);
      await adapter.consume(code.jti);
      const found = await adapter.find(code.jti);
      expect(found).to.deep.include(code);
      expect(found!.consumed).to.be.a('number').within(before, Math.floor(Date.now() / 1000) + 1);
      const first = (await rowOf('AuthorizationCode', code.jti))!.consumedAt;
      await adapter.consume(code.jti);
      expect((await rowOf('AuthorizationCode', code.jti))!.consumedAt).to.deep.equal(first);
    });

    it('stays consumed when the payload is saved again', async () => {
      const adapter = adapterFor('RefreshToken');
      const refresh = token({ grantId: 'g-resave', rotations: 0 });
      await adapter.upsert(refresh.jti, refresh, HOUR);
      await adapter.consume(refresh.jti);
      await adapter.upsert(refresh.jti, { ...refresh, rotations: 1 }, HOUR);
      expect((await adapter.find(refresh.jti))!.consumed).to.be.a('number');
    });

    it('consumes only the id of its own kind, and does nothing for an unknown id', async () => {
      const id = randomUUID();
      await adapterFor('AuthorizationCode').upsert(id, token(), 60);
      await adapterFor('DeviceCode').upsert(id, token(), 60);
      await adapterFor('DeviceCode').consume(id);
      await adapterFor('DeviceCode').consume(randomUUID());
      expect(await adapterFor('AuthorizationCode').find(id)).to.not.have.property('consumed');
      expect(await adapterFor('DeviceCode').find(id)).to.have.property('consumed');
    });
  });

  describe('destroy', () => {
    it('removes the row of its kind only', async () => {
      const id = randomUUID();
      await adapterFor('AccessToken').upsert(id, token(), HOUR);
      await adapterFor('Grant').upsert(id, { accountId: 'alice' }, HOUR);
      await adapterFor('AccessToken').destroy(id);
      await adapterFor('AccessToken').destroy(randomUUID());
      expect(await adapterFor('AccessToken').find(id)).to.equal(undefined);
      expect(await rowOf('AccessToken', id)).to.equal(undefined);
      expect(await adapterFor('Grant').find(id)).to.deep.equal({ accountId: 'alice' });
    });
  });

  describe('revokeByGrantId', () => {
    it('removes every token of the grant across kinds and leaves other grants, the grant and its interaction', async () => {
      const grantId = `g-${randomUUID()}`;
      const kinds = ['AccessToken', 'RefreshToken', 'AuthorizationCode', 'DeviceCode', 'BackchannelAuthenticationRequest'];
      const ofGrant = await Promise.all(
        kinds.map(async (kind) => {
          const payload = token({ grantId });
          await adapterFor(kind).upsert(payload.jti, payload, HOUR);
          return { kind, id: payload.jti };
        }),
      );
      const other = token({ grantId: `g-${randomUUID()}` });
      await adapterFor('AccessToken').upsert(other.jti, other, HOUR);
      await adapterFor('Grant').upsert(grantId, { jti: grantId, accountId: 'alice' }, HOUR);
      const interaction = randomUUID();
      await adapterFor('Interaction').upsert(interaction, { uid: interaction, grantId }, HOUR);

      await adapterFor('RefreshToken').revokeByGrantId(grantId);

      for (const { kind, id } of ofGrant) expect(await adapterFor(kind).find(id), kind).to.equal(undefined);
      expect(await adapterFor('AccessToken').find(other.jti)).to.deep.equal(other);
      // The provider destroys the Grant itself when its revokeGrantPolicy says so.
      expect(await adapterFor('Grant').find(grantId)).to.deep.include({ accountId: 'alice' });
      expect(await adapterFor('Interaction').find(interaction)).to.deep.include({ grantId });
    });
  });

  describe('OAuthModelRepository.prune', () => {
    it('deletes the rows expired at the given time and keeps the rest', async () => {
      const expired = randomUUID();
      const live = randomUUID();
      const forever = randomUUID();
      await adapterFor('ReplayDetection').upsert(expired, { jti: expired }, HOUR);
      await adapterFor('ReplayDetection').upsert(live, { jti: live }, 3 * HOUR);
      await adapterFor('Client').upsert(forever, { client_id: forever });
      const deleted = await models.prune(new Date(Date.now() + 2 * HOUR * 1000));
      expect(deleted).to.be.at.least(1);
      expect(await rowOf('ReplayDetection', expired)).to.equal(undefined);
      expect(await rowOf('ReplayDetection', live)).to.not.equal(undefined);
      expect(await rowOf('Client', forever)).to.not.equal(undefined);
      expect(await models.prune(new Date(Date.now() + 2 * HOUR * 1000))).to.equal(0);
    });
  });

  describe('loadSigningKey', () => {
    const secret = randomHex(32);
    const clearKey = () => handle.db.delete(oauthModels).where(eq(oauthModels.kind, 'SigningKey'));
    const signingRows = () => handle.db.select().from(oauthModels).where(eq(oauthModels.kind, 'SigningKey'));
    beforeEach(clearKey);

    it('creates an ES256 key once and loads the same key on the next start', async () => {
      const first = await loadSigningKey(models, new SecretBox(secret));
      expect(first).to.include({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(first.kid).to.match(/^[A-Za-z0-9_-]{43}$/);
      // A working key pair: what the private half signs, the public half verifies.
      const data = Buffer.from('issuer metadata');
      const signature = sign('sha256', data, { key: createPrivateKey({ key: first, format: 'jwk' }), dsaEncoding: 'ieee-p1363' });
      const { d: _private, ...publicJwk } = first;
      expect(verify('sha256', data, { key: createPublicKey({ key: publicJwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' }, signature)).to.equal(true);

      const again = await loadSigningKey(models, new SecretBox(secret));
      expect(again).to.deep.equal(first);
      expect(await signingRows()).to.have.length(1);
      expect((await signingRows())[0]!.expiresAt).to.equal(null);
    });

    it('gives two processes starting together one and the same key', async () => {
      // A second pool stands for the second process (PGlite has one connection: concurrent calls).
      const second = databaseUrl ? connectPostgres(databaseUrl, 2) : handle;
      try {
        const secondModels = new OAuthModelRepository(second.db);
        // Connections open first, so that both processes look for the key at the same moment.
        await Promise.all([signingRows(), secondModels.find('SigningKey', 'warm-up')]);
        const loads = await Promise.all([
          loadSigningKey(models, new SecretBox(secret)),
          loadSigningKey(secondModels, new SecretBox(secret)),
          loadSigningKey(secondModels, new SecretBox(secret)),
          loadSigningKey(models, new SecretBox(secret)),
        ]);
        for (const key of loads) expect(key).to.deep.equal(loads[0]);
        expect(await signingRows()).to.have.length(1);
      } finally {
        if (second !== handle) await second.close();
      }
    });

    it('takes the stored key when its own insert lost the race', async () => {
      const winner = await loadSigningKey(models, new SecretBox(secret));
      // A process whose look came before the winner's insert landed: it makes a key of its own.
      const lateModels = new OAuthModelRepository(handle.db);
      const find = lateModels.find.bind(lateModels);
      let looks = 0;
      lateModels.find = (kind, id, now) => (looks++ === 0 ? Promise.resolve(undefined) : find(kind, id, now));
      expect(await loadSigningKey(lateModels, new SecretBox(secret))).to.deep.equal(winner);
      expect(looks).to.equal(2);
      expect(await signingRows()).to.have.length(1);
    });

    it('stores the private key sealed, never in plain text', async () => {
      const key = await loadSigningKey(models, new SecretBox(secret));
      const [row] = await signingRows();
      const stored = JSON.stringify(row);
      expect(stored).to.not.include(key.d);
      expect(stored).to.not.include(key.x);
      expect(row!.payload).to.have.keys(['kid', 'sealed']);
      expect(row!.payload.kid).to.equal(key.kid);
    });

    it('refuses to start with another SECRET_KEY rather than make a new key', async () => {
      const key = await loadSigningKey(models, new SecretBox(secret));
      let error: Error | undefined;
      await loadSigningKey(models, new SecretBox(randomHex(32))).catch((err: Error) => (error = err));
      expect(error?.message).to.include(key.kid).and.include('SECRET_KEY');
      expect(await signingRows()).to.have.length(1);
    });
  });
});
