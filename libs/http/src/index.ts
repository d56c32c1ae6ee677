export * from './app';
export { completionLevel, requestLog, stripQuery, type LoggedRequest } from './request-log';
export * from './error-handlers';
export { listen, onShutdown, type Listening } from './listen';
