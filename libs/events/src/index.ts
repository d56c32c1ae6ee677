export * from './audit-event';
export * from './jetstream';
