/**
 * The members of an NHE registration that let it prove who it is at token exchange (an actor token): its public
 * keys (`jwks`, or `jwksUri`), a workload identity (a trusted workload issuer of the tenant + the subject its JWTs carry),
 * whether it must prove itself (`requireActorProof`, null = the tenant's settings.nhe.requireActorProof) and whether
 * its tokens must be DPoP-bound to one of its keys (`requireKeyBoundDpop`).
 */
import { z } from 'zod';
import type { Models, NheDoc } from '@idp/db';
import { problems } from '@idp/errors';
import { clientJwks } from './client-jwks';

/** An https URL without user info or fragment (where the keys are published; fetched SSRF-safely by the sidecar). */
export const httpsUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'https:' && !u.username && !u.password && !u.hash && u.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be an absolute https URL without user info or fragment');

export const workloadIdentity = z
  .object({
    issuer: z
      .string()
      .min(1)
      .max(2048)
      .describe(
        '`iss` of the workload JWTs: a workload issuer registered for the tenant (/tenants/{tenantId}/workload-issuers)',
      ),
    subject: z
      .string()
      .min(1)
      .max(1024)
      .describe(
        '`sub` of the workload JWTs, e.g. system:serviceaccount:<namespace>:<name> or spiffe://<trust-domain>/<path>',
      ),
  })
  .strict();

const jwksDoc = clientJwks.describe(
  'Public keys the NHE signs actor tokens (and, when pinned, DPoP proofs) with; not together with jwksUri',
);
const jwksUriDoc = httpsUrl.describe(
  "https URL of the NHE's JWK Set (fetched SSRF-safely, cached); not together with jwks",
);
const requireActorProofDoc = z
  .boolean()
  .nullable()
  .describe(
    "true: token exchange needs an actor JWT (actor_token_type urn:ietf:params:oauth:token-type:jwt) for this NHE; false: the nhe-id actor token is enough; null: the tenant's settings.nhe.requireActorProof",
  );
const requireKeyBoundDpopDoc = z
  .boolean()
  .describe('Tokens of this NHE must be DPoP-bound to one of its registered keys (needs jwks or jwksUri)');

export const actorProofBody = {
  jwks: jwksDoc.optional(),
  jwksUri: jwksUriDoc.optional(),
  workloadIdentity: workloadIdentity.optional(),
  requireActorProof: requireActorProofDoc.optional(),
  requireKeyBoundDpop: requireKeyBoundDpopDoc.optional(),
};

export const actorProofPatch = {
  jwks: jwksDoc.nullable().optional().describe('null removes the keys'),
  jwksUri: jwksUriDoc.nullable().optional().describe('null removes the URL'),
  workloadIdentity: workloadIdentity.nullable().optional().describe('null removes the workload identity'),
  requireActorProof: requireActorProofDoc.optional(),
  requireKeyBoundDpop: requireKeyBoundDpopDoc.optional(),
};

export const actorProofViewSchema = {
  jwks: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).optional(),
  jwksUri: z.string().optional(),
  workloadIdentity: z.object({ issuer: z.string(), subject: z.string() }).optional(),
  requireActorProof: z.boolean().nullable(),
  requireKeyBoundDpop: z.boolean(),
};

export interface ActorProofFields {
  jwks?: { keys: Array<Record<string, unknown>> } | null;
  jwksUri?: string | null;
  workloadIdentity?: { issuer: string; subject: string } | null;
  requireActorProof?: boolean | null;
  requireKeyBoundDpop?: boolean;
}

/** `doc.jwks` is a Mixed field: one written by hand or by an older version may hold no key list. */
export function actorFieldsView(doc: Omit<NheDoc, 'jwks'> & { jwks?: { keys?: NonNullable<NheDoc['jwks']>['keys'] } }) {
  return {
    ...(doc.jwks?.keys?.length ? { jwks: doc.jwks } : {}),
    ...(doc.jwksUri ? { jwksUri: doc.jwksUri } : {}),
    ...(doc.workloadIdentity
      ? { workloadIdentity: { issuer: doc.workloadIdentity.issuer, subject: doc.workloadIdentity.subject } }
      : {}),
    requireActorProof: typeof doc.requireActorProof === 'boolean' ? doc.requireActorProof : null,
    requireKeyBoundDpop: doc.requireKeyBoundDpop === true,
  };
}

/**
 * The registration as it will be after the change (`existing` + `change`) must be coherent: at most one of jwks and
 * jwksUri; requireKeyBoundDpop only with keys; a workload identity's issuer registered for the tenant (422), and no
 * other NHE of the tenant with the same workload identity (409: a workload must map to exactly one NHE).
 */
export async function checkActorProofFields(
  models: Models,
  tenantId: number,
  existing: (NheDoc & { _id: unknown }) | undefined,
  change: ActorProofFields,
): Promise<void> {
  const merged = <K extends keyof ActorProofFields>(k: K): ActorProofFields[K] | undefined =>
    k in change ? change[k] : (existing?.[k] as ActorProofFields[K]);
  const jwks = merged('jwks');
  const jwksUri = merged('jwksUri');
  const invalid: Array<{ name: string; reason: string }> = [];
  if (jwks && jwksUri)
    invalid.push({ name: 'body.jwksUri', reason: 'give the keys either inline (jwks) or by URL (jwksUri), not both' });
  if (merged('requireKeyBoundDpop') === true && !jwks && !jwksUri)
    invalid.push({ name: 'body.requireKeyBoundDpop', reason: "needs the NHE's keys (jwks or jwksUri)" });
  const wi = change.workloadIdentity;
  if (wi && !(await models.WorkloadIssuer.exists({ tenantId, issuer: wi.issuer }))) {
    invalid.push({
      name: 'body.workloadIdentity.issuer',
      reason: 'is not a workload issuer of this tenant (register it under /tenants/{tenantId}/workload-issuers first)',
    });
  }
  if (invalid.length) throw problems.validation("the NHE's actor authentication settings are inconsistent", invalid);
  if (wi) {
    const other = await models.Nhe.exists({
      tenantId,
      'workloadIdentity.issuer': wi.issuer,
      'workloadIdentity.subject': wi.subject,
      ...(existing ? { _id: { $ne: existing._id } } : {}),
    });
    if (other)
      throw problems.conflict(
        'another NHE of this tenant already has this workload identity: a workload authenticates as exactly one NHE',
      );
  }
}
