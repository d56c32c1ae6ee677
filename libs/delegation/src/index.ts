export * from './decision';
export * from './facts';
export * from './forwarded-exchange';
export * from './actor-proof';
export * from './agent-clients';
export * from './chain';
