/** OpenID CIBA Core 1.0 with RFC 9396 authorization details: see features.ts, register.ts and approval.ts. */
export { cibaFeatures, cibaParams, cibaTtl, CIBA_ACTOR_PARAMS } from './features';
export { registerCiba, type RegisterCibaOptions } from './register';
export { cibaApprovalRoutes, REQUESTS_PATH } from './approval-routes';
export { pendingViews } from './approval';
export { renderPendingSection, ledgerCspWithPending, newNonce, type PendingSection } from './ledger-section';
export { cibaSettingsOf, CIBA_GRANT_TYPE, AGENT_ACTION_TYPE } from './settings';
export { cibaRequestedSubject, CIBA_REQUESTED_SUBJECT_PREFIX } from './runtime';
export type { CibaForwarder, CibaRequested } from './runtime';
