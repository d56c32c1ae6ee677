export * from './decision';
export * from './facts';
