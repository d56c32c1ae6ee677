/**
 * Which upstream provider a sign-in goes to without asking: home-realm discovery (the domain of an email address the
 * person typed or the client sent as login_hint), an explicit `idp_hint` (or Keycloak's `kc_idp_hint`) naming a
 * provider's alias, or the tenant's only way in (an exclusive provider).
 */
import type { Models, UpstreamProviderDoc } from '@idp/db';
import { emailDomainOf } from './mappers';

export const IDP_HINT_PARAM = 'idp_hint';
export const KC_IDP_HINT_PARAM = 'kc_idp_hint';

/** The tenant's enabled providers, in the order they were created (the login page's order). */
export async function enabledProviders(models: Models, tenantId: number): Promise<UpstreamProviderDoc[]> {
  return models.UpstreamProvider.find({ tenantId, enabled: true }).sort({ _id: 1 }).lean<UpstreamProviderDoc[]>();
}

/** The provider whose emailDomains hold the domain of `value`, when it is an email address. */
export function providerForEmail(providers: UpstreamProviderDoc[], value: string): UpstreamProviderDoc | undefined {
  const domain = value.includes('@') ? emailDomainOf(value.trim()) : undefined;
  if (!domain) return undefined;
  return providers.find((p) => p.emailDomains.some((d) => d.toLowerCase() === domain));
}

/** Where an authorization request goes straight away, if anywhere, and the login_hint to pass on. */
export function directedProvider(
  providers: UpstreamProviderDoc[],
  params: Record<string, unknown>,
): { provider: UpstreamProviderDoc; loginHint?: string } | undefined {
  const hint = params[IDP_HINT_PARAM] ?? params[KC_IDP_HINT_PARAM];
  const loginHint = typeof params.login_hint === 'string' ? params.login_hint : undefined;
  if (typeof hint === 'string') {
    const named = providers.find((p) => p.alias === hint);
    if (named) return { provider: named, ...(loginHint ? { loginHint } : {}) };
  }
  if (loginHint) {
    const byDomain = providerForEmail(providers, loginHint);
    if (byDomain) return { provider: byDomain, loginHint };
  }
  const exclusive = providers.filter((p) => p.exclusive);
  if (exclusive.length === 1) return { provider: exclusive[0]!, ...(loginHint ? { loginHint } : {}) };
  return undefined;
}

/** Whether the tenant's people may sign in with a local password: not when an exclusive provider is enabled. */
export const passwordSignInAllowed = (providers: UpstreamProviderDoc[]) => !providers.some((p) => p.exclusive);
