/**
 * Authenticated actors: besides the spec's actor token (the NHE's identifier, type
 * `urn:vendor:token-type:nhe-id`, a name and no proof), token exchange accepts a JWT that proves the actor: signed
 * by one of the NHE's registered keys, or by a trusted workload identity issuer of the tenant.
 */
import { TOKEN_TYPE_NHE_ID } from '@idp/tokens';
import type { ActorAuthMethod } from '@idp/db';

export type { ActorAuthentication, ActorAuthMethod } from '@idp/db';

/** RFC 8693 section 3: a JWT (here the actor's proof of who it is). */
export const TOKEN_TYPE_JWT = 'urn:ietf:params:oauth:token-type:jwt';

/** The actor_token_type values token exchange accepts, in the order discovery lists them. */
export const ACTOR_TOKEN_TYPES_SUPPORTED = [TOKEN_TYPE_NHE_ID, TOKEN_TYPE_JWT] as const;

/** Discovery member (vendor) listing {@link ACTOR_TOKEN_TYPES_SUPPORTED}. */
export const DISCOVERY_ACTOR_TOKEN_TYPES = 'org.vendor.actor_token_types_supported';

/**
 * Member of a delegated token's `act` naming how the actor proved who it is: `key` or `workload`. Absent when the
 * actor was only named (the spec's nhe-id token), so the spec's claims are unchanged for that case. A resource
 * server that must only serve proven agents requires it.
 */
export const CLAIM_ACTOR_PROOF = 'org.vendor.actor.proof';

/** Longest actor JWT accepted (characters). */
export const MAX_ACTOR_JWT_LENGTH = 8192;

/** Longest lifetime of an actor JWT: exp - iat (seconds). */
export const MAX_ACTOR_JWT_LIFETIME = 300;

/** The proven methods (what CLAIM_ACTOR_PROOF can say). */
export const PROVEN_ACTOR_METHODS: readonly ActorAuthMethod[] = ['key', 'workload'];
