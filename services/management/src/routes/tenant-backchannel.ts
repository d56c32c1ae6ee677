/**
 * settings.backchannelAuthentication of a tenant (OpenID CIBA Core 1.0 with RFC 9396 authorization details,
 * services/oidc-core/src/provider/ciba): its patch schema, its view with defaults, and its `$set` paths.
 */
import { z } from 'zod';
import { BACKCHANNEL_AUTHENTICATION_DEFAULTS, type BackchannelAuthenticationSettings } from '@idp/db';
import { problems } from '@idp/errors';

export const BACKCHANNEL_DESCRIPTION =
  'Human approval of agents (OpenID CIBA Core 1.0, poll and ping, with RFC 9396 authorization details of type ' +
  'urn:idp:agent-action). `enabled` (default false): {issuer}/backchannel accepts backchannel authentication requests ' +
  'from clients with the grant type urn:openid:params:grant-type:ciba; the person answers on {issuer}/account/agents; ' +
  'the token is an NHE delegation token decided, minted and audited like a token exchange. ' +
  '`requestLifetimeSeconds` (default 300): how long a request waits for the person. `maxPendingPerUser` (default 5): ' +
  'undecided requests one person may have; one more is refused. `maxPendingPerClient` (default 100): undecided ' +
  'requests one client may have over all the people it asks; one more is refused. `pollIntervalSeconds` (default 5): the `interval` ' +
  'clients must keep; faster polls are answered slow_down. `approvalMaxAuthAgeSeconds` (absent: any sign-in): ' +
  'approving needs a sign-in no older than this. Not available to the system tenant.';

export const backchannelSettingsPatch = z
  .object({
    enabled: z.boolean(),
    requestLifetimeSeconds: z.number().int().min(30).max(3600),
    maxPendingPerUser: z.number().int().min(1).max(100),
    maxPendingPerClient: z.number().int().min(1).max(10_000),
    pollIntervalSeconds: z.number().int().min(1).max(60),
    approvalMaxAuthAgeSeconds: z.number().int().min(30).max(86_400).nullable().describe('null: any sign-in'),
  })
  .partial()
  .strict()
  .describe(BACKCHANNEL_DESCRIPTION);

export const backchannelSettingsView = z
  .object({
    enabled: z.boolean(),
    requestLifetimeSeconds: z.number().int(),
    maxPendingPerUser: z.number().int(),
    maxPendingPerClient: z.number().int(),
    pollIntervalSeconds: z.number().int(),
    approvalMaxAuthAgeSeconds: z.number().int().nullable(),
  })
  .describe(BACKCHANNEL_DESCRIPTION);

export function backchannelView(
  stored: Partial<BackchannelAuthenticationSettings> | undefined,
): z.output<typeof backchannelSettingsView> {
  const defined = Object.fromEntries(
    Object.entries((stored ?? {}) as Record<string, unknown>).filter(([, v]) => v !== undefined && v !== null),
  ) as Partial<BackchannelAuthenticationSettings>;
  const merged = { ...BACKCHANNEL_AUTHENTICATION_DEFAULTS, ...defined };
  return { ...merged, approvalMaxAuthAgeSeconds: merged.approvalMaxAuthAgeSeconds ?? null };
}

/** `$set` (and `$unset` as null) paths of a patch; refused for the system tenant. */
export function backchannelSettingsUpdate(
  system: boolean,
  patch: z.output<typeof backchannelSettingsPatch> | undefined,
): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  if (!patch) return set;
  if (system && patch.enabled === true)
    throw problems.validation('backchannel authentication is not available to the system tenant', [
      {
        name: 'body.settings.backchannelAuthentication.enabled',
        reason: 'the system tenant holds administrators, not people agents act for',
      },
    ]);
  for (const [k, v] of Object.entries(patch)) set[`settings.backchannelAuthentication.${k}`] = v;
  return set;
}
