export * from './decision';
export * from './facts';
export * from './forwarded-exchange';
export * from './actor-proof';
export * from './agent-clients';
export * from './chain';
export * from './sign-in';
export * from './forwarded-ciba';
