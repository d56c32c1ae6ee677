export * from './models';
export * from './connect';
export * from './ids';
export * from './rbac';
export * from './audit-chain';
export * from './ga4gh-visas';
export * from './dpop-proof-replay';
export * from './oidc-payloads';
