/**
 * Remembered consent of agent clients: consent is remembered per user, agent and scope set until revoked, and
 * prompt=none works against a remembered consent, so an agent can renew its access without interaction.
 *
 * node-oidc-provider finds a consent (its Grant) through the browser session only, so an agent that comes back in
 * another session (a new browser, the session expired, a headless renewal) would show its user the consent page
 * again and could never renew with prompt=none. For an agent client (a client an NHE names in agentClients), when
 * the session names no grant, the user's saved grant for that client is used: node-oidc-provider then asks again
 * only for what the grant does not hold (a wider scope set, or an API scope the user gained: provider/consent.ts).
 * The grant lives until it expires (the Grant TTL) or is revoked (the user's agents page forgets it; deleting the
 * client deletes it). Ordinary third-party clients keep node-oidc-provider's per-session consent. A native client
 * (loopback or custom-scheme redirect) still sees the page every time: node-oidc-provider's native_client_prompt
 * (RFC 8252 section 8.6: any local process can receive such a redirect, so approval is never silent).
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Models } from '@idp/db';
import { rememberedGrants } from '../account/ledger';
import { agentLinkFor } from './agent-clients';

/** The user's remembered grant for an agent client (the latest that holds most), or undefined. */
export async function rememberedAgentGrantId(
  models: Models,
  tenantId: number,
  ctx: KoaContextWithOIDC,
  clientId: string,
  accountId: string,
): Promise<string | undefined> {
  const link = await agentLinkFor(models, tenantId, ctx, clientId);
  if (link.kind !== 'agent') return undefined;
  const grants = (await rememberedGrants(models, tenantId, accountId)).filter((g) => g.clientId === clientId);
  const held = (g: (typeof grants)[number]) =>
    Object.values(g.resources).reduce((n, s) => n + s.split(' ').filter(Boolean).length, 0);
  return grants.sort((a, b) => held(b) - held(a))[0]?.grantId;
}
