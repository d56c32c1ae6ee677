import type { Models } from '@idp/db';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Deletes the grants (saved consents) users gave a client. The next authorization asks them again, and refresh
 * tokens issued under those grants stop working (the provider refuses a refresh whose grant is gone). For a
 * change to where a client's codes may go or how it authenticates: a consent was given to the client as it was.
 * Grants are node-oidc-provider payloads stored as JSON text (provider/adapter.ts in oidc-core), `_id`
 * `<tenantId>:Grant:<grantId>`. Returns how many were deleted.
 */
export async function revokeClientGrants(models: Models, tenantId: number, clientId: string): Promise<number> {
  const fragment = `"clientId":${JSON.stringify(clientId)}`;
  const candidates = await models.OidcPayload.find(
    { tenantId, model: 'Grant', payload: { $regex: escapeRegExp(fragment) } },
    { _id: 1, payload: 1 },
  ).lean();
  const ids = candidates
    .filter((g) => (JSON.parse(g.payload) as { clientId?: unknown }).clientId === clientId)
    .map((g) => g._id);
  if (!ids.length) return 0;
  const res = await models.OidcPayload.deleteMany({ tenantId, model: 'Grant', _id: { $in: ids } });
  return res.deletedCount;
}
