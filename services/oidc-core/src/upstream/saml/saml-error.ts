/**
 * Why a SAML message was refused. A closed set, so routes map each to a response with an exhaustive switch; the
 * message is for logs and never contains key material. Nothing here echoes attacker XML back to the browser.
 */
export type SamlErrorStatus =
  /** IdP metadata we cannot use (not SAML 2.0 metadata, no IdP role, no signing certificate, a DTD). */
  | 'invalid_metadata'
  /** Not well-formed XML, not base64, too large, or not the message we expected. */
  | 'invalid_message'
  /**
   * A DOCTYPE or entity declaration, refused before parsing: SAML messages are defined by XML Schema alone, and a
   * DTD only serves entity expansion and external entities (XXE).
   */
  | 'dtd_forbidden'
  /** No valid signature by one of the IdP's certificates where one is required. */
  | 'invalid_signature'
  /** Signed with an algorithm outside our allow-list (SHA-1, HMAC, c14n #WithComments, extra transforms). */
  | 'weak_algorithm'
  /** More than one Assertion anywhere, or a signature that does not cover its own parent: XML signature wrapping. */
  | 'wrapped'
  /** EncryptedAssertion: not supported by this SP (its metadata publishes no encryption key). */
  | 'encrypted_assertion'
  /** The Response carries no Assertion (and no error status). */
  | 'missing_assertion'
  /** The IdP answered with a non-Success StatusCode. */
  | 'idp_status'
  /** Issuer of the Response or Assertion is not the configured IdP entityID. */
  | 'wrong_issuer'
  /** Conditions/AudienceRestriction does not name our SP entityID. */
  | 'wrong_audience'
  /** Destination of the Response or Recipient of the bearer SubjectConfirmationData is not our ACS (or SLO) URL. */
  | 'wrong_recipient'
  /** NotOnOrAfter passed (beyond the accepted clock skew). */
  | 'expired'
  /** NotBefore still ahead (beyond the accepted clock skew). */
  | 'not_yet_valid'
  /** No InResponseTo: an IdP-initiated (unsolicited) Response, which this SP does not accept. */
  | 'unsolicited'
  /** InResponseTo names no pending AuthnRequest of this tenant and IdP (unknown, expired or another's). */
  | 'unknown_request'
  /** This Assertion, or a Response to this request, was already consumed. */
  | 'replayed';

export class SamlError extends Error {
  override readonly name = 'SamlError';
  constructor(
    readonly status: SamlErrorStatus,
    message: string,
  ) {
    super(message);
  }
}
