/**
 * A fresh passkey confirmation on an agent client's consent page (tenant setting
 * settings.passkeys.confirmAgentConsent). Allowing an automated agent to act for the user is the moment an attacker
 * who holds the browser session would want; with the setting on, a user who has a passkey must answer a WebAuthn
 * assertion bound to this consent interaction and to their own account, at the moment they press Allow (fresh by
 * construction). A user without a passkey consents as before: the page cannot ask for what they do not have (the
 * tenant makes passkeys mandatory with passkeyOnly).
 */
import { agentLinkOf } from '@idp/delegation';
import type { Models } from '@idp/db';
import type { TenantContext } from '../tenants/tenant-pool';
import { newNonce } from '../views/pages';
import { LIBRARY_PATH } from './browser-library';
import { CeremonyError, completeAuthentication } from './ceremony';
import { consentConfirmationScript } from './pages';
import { passkeySettingsOf } from './settings';

export interface ConsentConfirmationPart {
  html: string;
  script: string;
  nonce: string;
}

/** Whether this consent needs the confirmation: the setting on, an agent client, a user with a passkey. */
export async function consentConfirmationRequired(
  models: Models,
  tenant: TenantContext,
  clientId: string,
  accountId: string,
): Promise<boolean> {
  const s = passkeySettingsOf(tenant.tenant, tenant.provider.issuer);
  if (!s.enabled || !s.confirmAgentConsent) return false;
  if ((await agentLinkOf(models, tenant.tenantId, clientId)).kind !== 'agent') return false;
  return (
    (await models.WebauthnCredential.countDocuments({ tenantId: tenant.tenantId, userId: accountId }).limit(1)) > 0
  );
}

export function consentConfirmationPart(base: string, uid: string): ConsentConfirmationPart {
  const nonce = newNonce();
  return {
    nonce,
    html: `<script nonce="${nonce}" src="${base}${LIBRARY_PATH}"></script><p class="muted" id="passkey-confirm-help">Allowing an agent needs a confirmation with your passkey.</p><p class="muted" id="passkey-status" role="status" aria-live="polite"></p>`,
    script: consentConfirmationScript(`${base}/interaction/${encodeURIComponent(uid)}/passkey/confirm-options`),
  };
}

/** Verifies the confirmation posted with the Allow form; true when it is this user's fresh passkey assertion. */
export async function verifyConsentConfirmation(
  models: Models,
  tenant: TenantContext,
  uid: string,
  accountId: string,
  rawCredential: string,
): Promise<boolean> {
  const settings = passkeySettingsOf(tenant.tenant, tenant.provider.issuer);
  let credential: unknown;
  try {
    credential = JSON.parse(rawCredential);
  } catch {
    return false;
  }
  try {
    const r = await completeAuthentication(
      models,
      tenant.tenantId,
      settings,
      { interactionUid: uid, userId: accountId },
      credential,
    );
    // The confirmation is a second sign-in of the same person: it must verify them (UV), whatever the login policy.
    return r.userId === accountId && r.userVerified;
  } catch (err) {
    if (err instanceof CeremonyError) return false;
    throw err;
  }
}
