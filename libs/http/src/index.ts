export * from './app';
export * from './error-handlers';
export { listen, onShutdown, type Listening } from './listen';
export { disablePretenuring } from './runtime';
