import { BACKCHANNEL_AUTHENTICATION_DEFAULTS, type BackchannelAuthenticationSettings, type TenantDoc } from '@idp/db';

/** The grant type of CIBA's token requests (CIBA Core section 10.1). */
export const CIBA_GRANT_TYPE = 'urn:openid:params:grant-type:ciba';

/** The authorization-detail type this provider understands (RFC 9396 section 2): an action an agent asks to take. */
export const AGENT_ACTION_TYPE = 'urn:idp:agent-action';

/**
 * settings.backchannelAuthentication with its defaults (off, 5 minutes, 5 pending per person and 100 per client, poll
 * every 5 s).
 * Never in the system tenant: its users are administrators, not people agents act for.
 */
export function cibaSettingsOf(tenant: Pick<TenantDoc, 'settings' | 'system'>): BackchannelAuthenticationSettings {
  const stored = (
    tenant.settings as { backchannelAuthentication?: Partial<BackchannelAuthenticationSettings> } | undefined
  )?.backchannelAuthentication;
  const defined = Object.fromEntries(
    Object.entries((stored ?? {}) as Record<string, unknown>).filter(([, v]) => v !== undefined && v !== null),
  ) as Partial<BackchannelAuthenticationSettings>;
  return { ...BACKCHANNEL_AUTHENTICATION_DEFAULTS, ...defined, ...(tenant.system ? { enabled: false } : {}) };
}
