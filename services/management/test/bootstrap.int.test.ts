/**
 * Bootstrap of the system tenant runs in every management replica at start, possibly at the same moment: it must
 * converge on one tenant, one admin role and one admin client whatever the interleaving (FerretDB does not retry a
 * lost upsert race the way MongoDB does), and a changed bootstrap secret replaces the admin client's secret.
 */
import { randomInt } from 'node:crypto';
import { openTestDatabase } from '@idp/testing';
import { clientSecretDigest, KeyEncryptionKey, KeyStore } from '@idp/tokens';
import { bootstrapSystemTenant, SYSTEM_ADMIN_ROLE } from '../src/domain/bootstrap';

let db: Awaited<ReturnType<typeof openTestDatabase>>;
const PEPPER = 'p'.repeat(40);

beforeAll(async () => {
  db = await openTestDatabase('bootstrap');
});
afterAll(async () => {
  await db.connection.dropDatabase();
  await db.close();
});

it('replicas bootstrapping at once converge on one tenant, one admin role and one admin client', async () => {
  const systemTenantId = randomInt(1_000_000, 2_000_000);
  const keyStore = new KeyStore(db.models, new KeyEncryptionKey('k'.repeat(40)));
  const options = {
    systemTenantId,
    adminClientId: 'bootstrap-admin',
    adminClientSecret: 's'.repeat(43),
    clientSecretPepper: PEPPER,
  };
  const results = await Promise.allSettled(
    Array.from({ length: 4 }, () => bootstrapSystemTenant(db.models, keyStore, options)),
  );
  expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
  expect(await db.models.Tenant.countDocuments({ _id: systemTenantId })).toBe(1);
  expect(await db.models.Role.countDocuments({ tenantId: systemTenantId, name: SYSTEM_ADMIN_ROLE })).toBe(1);
  const clients = await db.models.Client.find({ tenantId: systemTenantId, clientId: 'bootstrap-admin' }).lean();
  expect(clients).toHaveLength(1);
  expect(clients[0]!.secretDigest).toBe(clientSecretDigest(PEPPER, options.adminClientSecret));

  await bootstrapSystemTenant(db.models, keyStore, { ...options, adminClientSecret: 't'.repeat(43) });
  const after = await db.models.Client.find({ tenantId: systemTenantId, clientId: 'bootstrap-admin' }).lean();
  expect(after).toHaveLength(1);
  expect(after[0]!.secretDigest).toBe(clientSecretDigest(PEPPER, 't'.repeat(43)));
});

it('creates the admin client even when the client id counter hands out a numeric id already in use', async () => {
  const systemTenantId = randomInt(2_000_000, 3_000_000);
  const keyStore = new KeyStore(db.models, new KeyEncryptionKey('k'.repeat(40)));
  const options = {
    systemTenantId,
    adminClientId: 'bootstrap-admin',
    adminClientSecret: 's'.repeat(43),
    clientSecretPepper: PEPPER,
  };
  // Another tenant's client holds the value the counter gives out next (FerretDB increments race, or a restore).
  const counter = await db.models.Counter.findOneAndUpdate(
    { _id: 'clients' },
    { $inc: { seq: 1 } },
    { upsert: true, returnDocument: 'after' },
  ).lean();
  const taken = 1000 + counter!.seq + 1;
  await db.models.Client.create({
    tenantId: systemTenantId + 1,
    clientId: 'squatter',
    numericId: taken,
    name: 'Squatter',
    tokenEndpointAuthMethod: 'none',
    grantTypes: [],
    responseTypes: [],
    redirectUris: [],
  });
  await bootstrapSystemTenant(db.models, keyStore, options);
  const admin = await db.models.Client.findOne({ tenantId: systemTenantId, clientId: 'bootstrap-admin' }).lean();
  expect(admin).not.toBeNull();
  expect(admin!.numericId).toBeGreaterThan(taken);
  expect(admin!.secretDigest).toBe(clientSecretDigest(PEPPER, options.adminClientSecret));
});
