/**
 * The audit record of an Identity Assertion Authorization Grant (draft-ietf-oauth-identity-assertion-authz-grant)
 * that oidc-core issued for an agent: the ID-JAG carries the agent's delegation (`act`, `agent`) to another
 * organisation's authorization server, so it is recorded exactly like a delegation token (mint.ts auditIssuance): one
 * `nhe.token.issued` event on the same JetStream subject, JetStream's ack awaited before the assertion leaves. No
 * durable audit record, no ID-JAG.
 */
import { OAuthError } from '@idp/errors';
import type { NheTokenIssued } from '@idp/events';

export interface IdJagIssuedDeps {
  publishIssued: (event: NheTokenIssued) => Promise<void>;
}

/** `event`: what oidc-core sends, the issuance event of an ID-JAG (crossDomain.direction `issued`, routes/id-jag-issued.ts). */
export async function recordIdJagIssuance(deps: IdJagIssuedDeps, event: NheTokenIssued): Promise<{ recorded: true }> {
  try {
    await deps.publishIssued(event);
  } catch (err) {
    throw new OAuthError(
      'temporarily_unavailable',
      'the issuance could not be recorded; no identity assertion was issued, retry later',
      503,
      { cause: err },
    );
  }
  return { recorded: true };
}
