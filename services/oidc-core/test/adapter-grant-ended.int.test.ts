/**
 * The provider's storage tells when a grant ends (provider/adapter.ts), after the store has it: oidc-core publishes
 * that as a `grant` invalidation (account/revoke.ts grantEndedPublisher) for the sidecars' grant cache. Every path
 * node-oidc-provider ends a grant by (revocation, sign-out, code reuse, the ledger) goes through Grant's destroy;
 * deleting a dynamically registered client ends its users' grants too.
 */
import { openTestDatabase } from '@idp/testing';
import { createAdapterFactory } from '../src/provider/adapter';

const T = 4711;
let db: Awaited<ReturnType<typeof openTestDatabase>>;

beforeAll(async () => {
  db = await openTestDatabase('adapter-grant-ended');
});

afterAll(async () => {
  await db.connection.dropDatabase();
  await db.close();
});

function adapters() {
  const ended: Array<{ tenantId: number; grantId: string | undefined; stored: boolean }> = [];
  const factory = createAdapterFactory(
    db.models,
    T,
    undefined,
    undefined,
    { mode: 'open' } as never,
    async (tenantId, grantId) => {
      // Reported after the store has it: the record is already gone when the event goes out.
      const stored = grantId
        ? (await db.models.OidcPayload.countDocuments({ _id: `${tenantId}:Grant:${grantId}` })) > 0
        : false;
      ended.push({ tenantId, grantId, stored });
    },
  );
  return { factory, ended };
}

test("destroying a Grant reports it, after it is deleted; destroying another model's record does not", async () => {
  const { factory, ended } = adapters();
  await factory('Grant').upsert('g1', { jti: 'g1', kind: 'Grant', clientId: 'app', accountId: 'u' } as never, 3600);
  await factory('AccessToken').upsert('at1', { jti: 'at1', grantId: 'g1' } as never, 3600);
  await factory('AccessToken').destroy('at1');
  await factory('Session').destroy('nothing');
  expect(ended).toEqual([]);
  await factory('Grant').destroy('g1');
  expect(ended).toEqual([{ tenantId: T, grantId: 'g1', stored: false }]);
  expect(await factory('Grant').find('g1')).toBeUndefined();
});

test("deleting a dynamically registered client reports that the tenant's grants changed (its users' grants ended)", async () => {
  const { factory, ended } = adapters();
  await db.models.Client.create({
    tenantId: T,
    clientId: 'dyn',
    numericId: 990001,
    name: 'dyn',
    enabled: true,
    registration: 'dynamic',
    grantTypes: ['authorization_code'],
    redirectUris: ['https://dyn.example/cb'],
  });
  await factory('Grant').upsert('g2', { jti: 'g2', kind: 'Grant', clientId: 'dyn', accountId: 'u' } as never, 3600);
  await factory('Client').destroy('dyn');
  expect(await db.models.OidcPayload.countDocuments({ _id: `${T}:Grant:g2` })).toBe(0);
  expect(ended).toEqual([{ tenantId: T, grantId: undefined, stored: false }]);
});
