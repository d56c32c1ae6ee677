export * from './decision';
export * from './facts';
export * from './forwarded-exchange';
