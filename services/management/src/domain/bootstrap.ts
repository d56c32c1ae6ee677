import type { Models } from '@idp/db';
import { clientSecretDigest, MANAGEMENT_AUDIENCE, MANAGEMENT_SCOPES, type KeyStore } from '@idp/tokens';
import { insertClient, upsertRacing } from '@idp/db';

export interface BootstrapOptions {
  systemTenantId: number;
  adminClientId: string;
  adminClientSecret: string;
  clientSecretPepper: string;
}

export const SYSTEM_ADMIN_ROLE = 'system-admin';

/**
 * Creates the system tenant, its signing keys, an admin role holding every management scope and the first admin
 * client (client credentials), from the bootstrap secret. Idempotent: a restart re-applies the same state, and
 * a changed bootstrap secret replaces the admin client's secret.
 */
export async function bootstrapSystemTenant(models: Models, keyStore: KeyStore, o: BootstrapOptions): Promise<void> {
  // Replicas starting together run this at once: an upsert that loses the insert race runs again (upsertRacing).
  await upsertRacing(() =>
    models.Tenant.updateOne(
      { _id: o.systemTenantId },
      { $setOnInsert: { _id: o.systemTenantId, name: 'system', system: true } },
      { upsert: true },
    ).exec(),
  );
  await keyStore.ensureKeys(o.systemTenantId);
  const role = await upsertRacing(() =>
    models.Role.findOneAndUpdate(
      { tenantId: o.systemTenantId, name: SYSTEM_ADMIN_ROLE },
      { $set: { resourceServer: MANAGEMENT_AUDIENCE, permissions: [...MANAGEMENT_SCOPES] } },
      { upsert: true, returnDocument: 'after' },
    )
      .lean()
      .exec(),
  );
  const existing = await models.Client.findOne(
    { tenantId: o.systemTenantId, clientId: o.adminClientId },
    { _id: 1 },
  ).lean();
  const fields = {
    name: 'Bootstrap administrator',
    secretDigest: clientSecretDigest(o.clientSecretPepper, o.adminClientSecret),
    tokenEndpointAuthMethod: 'client_secret_basic' as const,
    grantTypes: ['client_credentials'],
    responseTypes: [],
    redirectUris: [],
    roleIds: [String(role!._id)],
    enabled: true,
  };
  if (existing) await models.Client.updateOne({ _id: existing._id }, { $set: fields });
  else if (!(await insertClient(models, { ...fields, tenantId: o.systemTenantId, clientId: o.adminClientId }))) {
    // Another replica created it meanwhile: make sure it carries this secret.
    await models.Client.updateOne({ tenantId: o.systemTenantId, clientId: o.adminClientId }, { $set: fields });
  }
}
