/**
 * What the MCP demo of `npm start` adds to the demo tenant (seedDelegationTenant made it), written like that seed
 * through the models with their defaults, before any request reaches the tenant:
 * - Dynamic Client Registration `open` and Client ID Metadata Documents on (development settings: anyone may
 *   register a client; loopback documents only because the operator's CIMD_ALLOW_LOOPBACK is on for this run);
 * - the sample MCP server as a resource server (its /mcp URL is its identifier, RFC 9728) accepting NHE delegation
 *   tokens, its scope given to the demo user by a role;
 * - the NHE `orders-agent` and its delegation policy for the user extended to that scope, so a client the tenant
 *   administrator names among the NHE's agent clients acts for the user as `orders-agent`;
 * - one Shared Signals receiver client per sample process (ssf.manage on urn:idp:ssf), so each learns revocations.
 */
import type { Models } from '@idp/db';
import { createClient, type SeededTenant } from '@idp/testing';
import { SSF_AUDIENCE, SSF_MANAGE_SCOPE } from '@idp/tokens';

/** The scope of the sample MCP server's tools (e2e/mcp-server MCP_TOOLS_SCOPE). */
export const MCP_TOOLS_SCOPE = 'mcp:tools';

export interface McpDemoTenant {
  /** Client credentials of the MCP server's and the Orders API's SSF receivers. */
  receivers: { mcp: { clientId: string; clientSecret: string }; orders: { clientId: string; clientSecret: string } };
}

export async function seedMcpDemoTenant(
  models: Models,
  demo: SeededTenant,
  o: { mcpResource: string; clientSecretPepper: string },
): Promise<McpDemoTenant> {
  const tenantId = demo.tenantId;
  await models.Tenant.updateOne(
    { _id: tenantId },
    // Every run of the MCP host registers a new client from 127.0.0.1: room for a developer's afternoon of reruns.
    {
      $set: {
        'settings.registration': { mode: 'open', rateLimit: { maxPerWindow: 100, windowSeconds: 3600 } },
        'settings.clientIdMetadataDocuments': { enabled: true },
      },
    },
  );
  await models.ResourceServer.create({
    tenantId,
    identifier: o.mcpResource,
    name: 'Orders MCP server',
    scopes: [MCP_TOOLS_SCOPE],
    scopeDescriptions: [{ scope: MCP_TOOLS_SCOPE, description: 'Use the Orders tools' }],
    metadataUrl: `${new URL(o.mcpResource).origin}/.well-known/oauth-protected-resource${new URL(o.mcpResource).pathname}`,
    config: {
      accessToken: { lifetime: 3600 },
      nhe: { acceptDelegationTokens: true, requireDelegationTokens: false, allowedNheTypes: [] },
    },
  });
  const mcpUser = await models.Role.create({
    tenantId,
    name: 'mcp-user',
    resourceServer: o.mcpResource,
    permissions: [MCP_TOOLS_SCOPE],
  });
  await models.User.updateOne({ tenantId, _id: demo.user.id }, { $addToSet: { roleIds: String(mcpUser._id) } });
  await models.Nhe.updateOne({ tenantId, _id: demo.nhe.id }, { $addToSet: { allowedScopes: MCP_TOOLS_SCOPE } });
  await models.DelegationPolicy.updateOne(
    { tenantId, _id: demo.policyId },
    { $addToSet: { allowedScopes: MCP_TOOLS_SCOPE } },
  );

  const ssfReceiver = await models.Role.create({
    tenantId,
    name: 'ssf-receiver',
    resourceServer: SSF_AUDIENCE,
    permissions: [SSF_MANAGE_SCOPE],
  });
  const receiver = async (clientId: string, name: string) => {
    const c = await createClient(models, o.clientSecretPepper, {
      tenantId,
      clientId,
      name,
      grantTypes: ['client_credentials'],
      roleIds: [String(ssfReceiver._id)],
    });
    return { clientId: c.clientId, clientSecret: c.clientSecret };
  };
  return {
    receivers: {
      mcp: await receiver('mcp-server-ssf', 'MCP sample server (SSF receiver)'),
      orders: await receiver('orders-api-ssf', 'Orders API sample (SSF receiver)'),
    },
  };
}
