export { verifyAccessToken, verifyJwtAccessToken, parseAuthorization, tokenBinding } from './access-token';
export type {
  AccessTokenKey,
  AccessTokenOptions,
  DpopRequest,
  DpopSettings,
  JwtAccessTokenOptions,
  TokenBinding,
  VerifiedAccessToken,
  VerifiedJwtAccessToken,
} from './access-token';
export { verifyDpopProof, accessTokenHash, normalizeHtu } from './dpop';
export type { DpopNonceOptions, DpopProofOptions, VerifiedDpopProof } from './dpop';
export { ResourceServerError, isResourceServerError } from './errors';
export type { AuthScheme, ChallengeOptions, RefusalReason, ResourceServerErrorCode } from './errors';
export { memoryReplayStore } from './replay';
export type { ReplayStore } from './replay';
export { isCanonicalBase64url, isCanonicalCompactJws } from './compact-jws';
export { ASYMMETRIC_ALGORITHMS, DEFAULT_ACCESS_TOKEN_ALGORITHMS, DEFAULT_DPOP_ALGORITHMS } from './algorithms';
export { VerifierUnavailableError } from './errors';
export { createVerifier, applyRules } from './verifier';
export type {
  Access,
  AccessRules,
  DelegationRule,
  RevocationSource,
  Verifier,
  VerifierDpopOptions,
  VerifierOptions,
  VerifyRequest,
} from './verifier';
export {
  actorProof,
  chainAgents,
  delegationOf,
  CLAIM_ACTOR_PROOF,
  CLAIM_NHE_DELEGATION,
  NHE_SUBJECT_PREFIX,
} from './delegation';
export type { Actor, Agent, AgentModel, Delegation } from './delegation';
export { discoverMetadata, discoveryUrls } from './discovery';
export type { AuthorizationServerMetadata, FetchLike } from './discovery';
export { auditLine } from './audit';
export type { AuditLine } from './audit';
export {
  protectedResourceMetadata,
  protectedResourceMetadataPath,
  protectedResourceMetadataUrl,
  PROTECTED_RESOURCE_WELL_KNOWN,
} from './protected-resource-metadata';
export type { ProtectedResourceMetadata, ProtectedResourceMetadataOptions } from './protected-resource-metadata';
export { DenyList, matches as revocationMatches } from './deny-list';
export type { DenyListAddResult, DenyListOptions, RevocationSelector } from './deny-list';
export { createSsfPollReceiver, ssfConfigurationUrls, SsfReceiverError } from './ssf-receiver';
export type {
  SsfClientCredentials,
  SsfFetch,
  SsfPollReceiver,
  SsfPollReceiverOptions,
  SsfReceiverStatus,
} from './ssf-receiver';
export {
  CAEP_SESSION_REVOKED,
  NHE_REVOCATION_EVENT,
  SSF_VERIFICATION_EVENT,
  selectorFromSet,
  selectorFromVendorEvent,
  SetProblem,
} from './ssf-events';
