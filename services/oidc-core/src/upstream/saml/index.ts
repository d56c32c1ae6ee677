/**
 * SAML 2.0 Service Provider core for upstream sign-in: a tenant's SAML IdPs (Keycloak, ADFS, Entra ID, Okta,
 * Shibboleth, SimpleSAMLphp…) sign people in through SP-initiated Web Browser SSO (SAML 2.0 Profiles 4.1), with
 * HTTP-Redirect for requests and HTTP-POST to our ACS for responses, and Single Logout over HTTP-Redirect (4.4).
 * Routes call these functions; nothing here reads config or the request.
 *
 *   parseIdpMetadata(xml)                          → SamlIdpDescriptor            (throws SamlError 'invalid_metadata')
 *   spMetadata(sp)                                 → SP metadata XML
 *   generateSpKeyPair(commonName)                  → Promise<{ privateKeyPem, certificatePem }>  (async: WebCrypto)
 *   mongoSamlStores(model)                         → SamlStores  (model: libs/db SamlRequestCache)
 *   startSignIn(sp, idp, stores, { tenantId, providerAlias, relayState, forceAuthn? })
 *                                                  → { redirectUrl, requestId }
 *   finishSignIn(sp, idp, stores, { tenantId, providerAlias, samlResponse, expectedRequestId? })
 *                                                  → SamlAssertionResult
 *   startLogout(sp, idp, { nameId, nameIdFormat?, sessionIndex?, relayState }) → redirect URL to the IdP's SLO
 *   handleIdpLogoutRequest(sp, idp, rawQuery)      → { nameId, nameIdFormat?, sessionIndex?, responseRedirectUrl }
 *   finishLogout(sp, idp, rawQuery)                → void
 *
 * Differences from the first sketch of this interface: tenantId is a number (as everywhere in libs/db);
 * generateSpKeyPair is async (WebCrypto key generation); the logout handlers take the raw query string, because the
 * HTTP-Redirect signature covers the URL-encoded bytes as sent (Bindings 3.4.4.1).
 *
 * Every refusal is a SamlError with a `status` from a closed set (saml-error.ts); routes map it to their response and
 * never echo the XML. Anything else thrown is a bug or a store failure.
 *
 * Security choices: the assertion must be signed by one of the IdP's certificates, and what we return is read from
 * the signed bytes; exactly one Assertion in the whole document; no EncryptedAssertion; RSA-SHA256/512 only (SHA-1
 * refused), C14N without comments; InResponseTo bound to a pending request of this tenant and IdP (no unsolicited
 * Responses); Audience = SP entityID, Recipient/Destination = ACS, NotBefore/NotOnOrAfter with 60 s skew; assertion
 * and request IDs single-use across replicas; DTDs refused before parsing.
 */
export { SamlError, type SamlErrorStatus } from './saml-error';
export { parseIdpMetadata, type SamlIdpDescriptor } from './idp-metadata';
export { spMetadata, generateSpKeyPair, type SamlSpSettings } from './sp-metadata';
export {
  mongoSamlStores,
  type SamlStores,
  type PendingRequests,
  type ConsumedAssertions,
  type SamlCacheRecord,
  type SamlScope,
} from './stores';
export { startSignIn, finishSignIn, REQUEST_TTL_MS, CLOCK_SKEW_MS, type SamlAssertionResult } from './web-sso';
export { startLogout, handleIdpLogoutRequest, finishLogout } from './single-logout';
