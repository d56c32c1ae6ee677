export * from './app';
export * from './error-handlers';
export {
  exceedsJsonDepth,
  isJsonTooDeep,
  jsonBody,
  JsonTooDeepError,
  MAX_JSON_BODY_DEPTH,
  type JsonBodyOptions,
} from './json-body';
export { listen, onShutdown, type Listening } from './listen';
export { disablePretenuring } from './runtime';
export {
  addressProblem,
  checkOutboundUrl,
  guardedLookup,
  outboundRequest,
  OutboundUrlError,
  type OutboundPolicy,
  type OutboundRequest,
  type OutboundResponse,
} from './outbound';
