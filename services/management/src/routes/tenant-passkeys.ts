/**
 * settings.passkeys of a tenant (WebAuthn passkeys, services/oidc-core/src/passkeys): its patch schema, its view with
 * defaults, and the rule that the RP ID is fixed once the tenant has its first enrolment (WebAuthn L3 section 5.1.3:
 * a credential is scoped to the RP ID it was created for; another RP ID would make every passkey unusable).
 */
import { z } from 'zod';
import { PASSKEY_SETTINGS_DEFAULTS, type Models, type PasskeySettings } from '@idp/db';
import { problems } from '@idp/errors';

export const PASSKEYS_DESCRIPTION =
  'WebAuthn passkeys. `enabled` (default false): the login page offers "Sign in with a passkey" and browser autofill ' +
  '(conditional mediation), users enrol passkeys at {issuer}/account/passkeys. `rpId`: the WebAuthn RP ID, default the ' +
  "host of the tenant's public base URL; it cannot change once a passkey is enrolled. `passkeyOnly`: the login page " +
  'offers only passkeys and recovery codes (accounts are set up with one-time enrolment links). `userVerification` ' +
  '(default required), `attestation` (default none: the acr phrh is then never issued). `confirmAgentConsent`: the ' +
  'consent page of an agent client asks a user who has a passkey to confirm with it.';

/** A WebAuthn RP ID is a registrable domain suffix of the origin's host (WebAuthn L3 section 5.1.3): a host name. */
const rpId = z
  .string()
  .min(1)
  .max(253)
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/, {
    message: 'must be a lower-case host name (no scheme, port or path)',
  });

export const passkeySettingsPatch = z
  .object({
    enabled: z.boolean(),
    rpId: rpId.nullable().describe("null: the host of the tenant's public base URL"),
    passkeyOnly: z.boolean(),
    userVerification: z.enum(['required', 'preferred']),
    attestation: z.enum(['none', 'direct']),
    confirmAgentConsent: z.boolean(),
  })
  .partial()
  .strict()
  .describe(PASSKEYS_DESCRIPTION);

export const passkeySettingsView = z
  .object({
    enabled: z.boolean(),
    rpId: z.string().nullable(),
    passkeyOnly: z.boolean(),
    userVerification: z.enum(['required', 'preferred']),
    attestation: z.enum(['none', 'direct']),
    confirmAgentConsent: z.boolean(),
  })
  .describe(PASSKEYS_DESCRIPTION);

/** The stored settings with defaults (`rpId` null: derived from the issuer). */
export function passkeysView(stored: Partial<PasskeySettings> | undefined): z.output<typeof passkeySettingsView> {
  const defined = Object.fromEntries(
    (Object.entries(stored ?? {}) as Array<[string, unknown]>).filter(([, v]) => v !== undefined && v !== null),
  ) as Partial<PasskeySettings>;
  const { rpId: id, ...rest } = { ...PASSKEY_SETTINGS_DEFAULTS, ...defined };
  return { ...rest, rpId: id ?? null };
}

/**
 * `$set` paths of a patch. Refuses a change of the RP ID once the tenant has an enrolled passkey (checked
 * against the stored credentials, so it holds whatever was stored before).
 */
export async function passkeySettingsUpdate(
  models: Models,
  tenantId: number | undefined,
  current: Partial<PasskeySettings> | undefined,
  patch: z.output<typeof passkeySettingsPatch> | undefined,
): Promise<Record<string, unknown>> {
  const set: Record<string, unknown> = {};
  if (!patch) return set;
  if (
    patch.rpId !== undefined &&
    (patch.rpId ?? undefined) !== (current?.rpId ?? undefined) &&
    tenantId !== undefined
  ) {
    const enrolled = await models.WebauthnCredential.countDocuments({ tenantId }).limit(1);
    if (enrolled > 0)
      throw problems.validation('settings.passkeys.rpId cannot change', [
        {
          name: 'body.settings.passkeys.rpId',
          reason:
            'this tenant has enrolled passkeys, and a passkey works only for the RP ID it was created for (WebAuthn section 5.1.3): remove every passkey first (DELETE /tenants/{tenantId}/users/{userId}/passkeys) or keep the RP ID',
        },
      ]);
  }
  // A stored null RP ID reads as absent (derived from the issuer).
  for (const [k, v] of Object.entries(patch)) set[`settings.passkeys.${k}`] = v;
  return set;
}
