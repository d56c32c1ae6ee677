export * from './infra';
export * from './fixtures';
export * from './database';
export * from './nats';
export * from './http';
export * from './rfc9068';
