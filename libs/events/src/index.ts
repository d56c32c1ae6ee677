export * from './audit-event';
export * from './refusal-event';
export * from './jetstream';
export * from './revocations';
export * from './invalidation';
export * from './single-use';
export * from './startup-retry';
