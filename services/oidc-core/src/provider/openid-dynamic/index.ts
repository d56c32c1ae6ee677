/** The OpenID Dynamic profile (profile.ts) and what every tenant's authorization endpoint and JWKS need with it. */
export {
  dynamicProfileConfiguration,
  openidDynamicProfileOn,
  isIdTokenResponseType,
  ID_TOKEN_RESPONSE_TYPES,
  REQUEST_OBJECT_SIGNING_ALGS,
  USERINFO_SIGNING_ALGS,
} from './profile';
export {
  idTokenResponseParams,
  OPENID_DYNAMIC_CLIENT_PROPS,
  pkceRequired,
  REQUIRE_PKCE_METADATA,
  validatePkceChoice,
} from './client-choices';
export { registerAuthorizationRequests, requestUriParams } from './authorization-requests';
export { registerPublishedMetadata } from './published-metadata';
export { registeredClientPresentation, type ClientPresentation } from './client-presentation';
