import { randomBytes } from 'node:crypto';
import { SAML, SamlStatusError, ValidateInResponseTo, type SamlConfig } from '@node-saml/node-saml';
import type { SamlIdpDescriptor } from './idp-metadata';
import { SamlError, type SamlErrorStatus } from './saml-error';
import type { SamlSpSettings } from './sp-metadata';
import { pendingCacheProvider, type SamlScope, type SamlStores } from './stores';
import {
  attr,
  certificateToPem,
  checkSignatureAlgorithms,
  child,
  children,
  decodeBase64,
  descendants,
  isElement,
  NS,
  parseXml,
  text,
} from './xml';

/** How long an AuthnRequest waits for its Response (the user signs in at the IdP meanwhile). */
export const REQUEST_TTL_MS = 10 * 60 * 1000;
/** Clock skew accepted on NotBefore / NotOnOrAfter (SAML 2.0 Core 2.5.1.2 leaves it to the relying party). */
export const CLOCK_SKEW_MS = 60 * 1000;

const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

export interface SamlAssertionResult {
  issuer: string;
  nameId: string;
  nameIdFormat?: string;
  sessionIndex?: string;
  /** By Attribute Name, every AttributeValue's text (SAML 2.0 Core 2.7.3.1). */
  attributes: Record<string, string[]>;
  authnContextClassRef?: string;
  authnInstant?: string;
  inResponseTo: string;
  assertionId: string;
  /** The earliest NotOnOrAfter of the Conditions and the bearer SubjectConfirmationData. */
  notOnOrAfter?: string;
}

/** A SAML 2.0 ID: an xs:ID (NCName), 160 random bits (SAML 2.0 Core 1.3.4 asks for at least 128). */
export function newSamlId(): string {
  return `_${randomBytes(20).toString('hex')}`;
}

/** node-saml options common to every message with this IdP; the choices below are the security requirements. */
export function nodeSamlConfig(sp: SamlSpSettings, idp: SamlIdpDescriptor): SamlConfig {
  return {
    idpCert: idp.signingCertificates.map(certificateToPem),
    issuer: sp.entityId,
    callbackUrl: sp.acsUrl,
    audience: sp.entityId,
    idpIssuer: idp.entityId,
    identifierFormat: sp.nameIdFormat ?? null,
    // The assertion itself must carry a valid signature; a signed Response around an unsigned assertion is not
    // enough (Keycloak signs the assertion by default; a Response signature alone is refused).
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_TTL_MS,
    // Ask for no particular AuthnContext: the IdP's policy decides, and the result reports what it used.
    disableRequestedAuthnContext: true,
    signatureAlgorithm: 'sha256',
    digestAlgorithm: 'sha256',
  };
}

/**
 * SP-initiated Web Browser SSO (SAML 2.0 Profiles 4.1): an AuthnRequest over HTTP-Redirect (Bindings 3.4), signed
 * when the SP signs requests, its ID recorded as pending for this tenant and IdP.
 */
export async function startSignIn(
  sp: SamlSpSettings,
  idp: SamlIdpDescriptor,
  stores: SamlStores,
  options: { tenantId: number; providerAlias: string; relayState: string; forceAuthn?: boolean },
): Promise<{ redirectUrl: string; requestId: string }> {
  if (!idp.ssoRedirectUrl)
    throw new SamlError('invalid_metadata', 'the IdP has no SingleSignOnService with the HTTP-Redirect binding');
  if (sp.signAuthnRequests && !sp.privateKeyPem)
    throw new SamlError('invalid_metadata', 'signAuthnRequests is set but the SP has no private key');
  const scope: SamlScope = { tenantId: options.tenantId, providerAlias: options.providerAlias };
  const requestId = newSamlId();
  const saml = new SAML({
    ...nodeSamlConfig(sp, idp),
    entryPoint: idp.ssoRedirectUrl,
    forceAuthn: options.forceAuthn ?? false,
    generateUniqueId: () => requestId,
    cacheProvider: pendingCacheProvider(stores.pending, scope, REQUEST_TTL_MS),
    ...(sp.signAuthnRequests && { privateKey: sp.privateKeyPem }),
  });
  const redirectUrl = await saml.getAuthorizeUrlAsync(options.relayState, undefined, {});
  return { redirectUrl, requestId };
}

/**
 * Consumes a Response posted to our ACS (HTTP-POST binding, Bindings 3.5), following Profiles 4.1.4.3 and the
 * processing rules of 4.1.4.2. Everything returned is read from the bytes the IdP's signature covers (the signed
 * reference xml-crypto hands back), never from the posted document.
 */
export async function finishSignIn(
  sp: SamlSpSettings,
  idp: SamlIdpDescriptor,
  stores: SamlStores,
  options: { tenantId: number; providerAlias: string; samlResponse: string; expectedRequestId?: string },
): Promise<SamlAssertionResult> {
  const scope: SamlScope = { tenantId: options.tenantId, providerAlias: options.providerAlias };
  const xml = decodeBase64(options.samlResponse).toString('utf8');
  const doc = parseXml(xml);
  const response = doc.documentElement;
  if (!isElement(response, NS.protocol, 'Response')) throw new SamlError('invalid_message', 'not a samlp:Response');
  if (descendants(doc, NS.assertion, 'EncryptedAssertion').length > 0)
    throw new SamlError(
      'encrypted_assertion',
      'EncryptedAssertion is not supported: this SP publishes no encryption key',
    );
  // One Assertion in the whole document, a direct child of the Response: a second copy anywhere (Extensions,
  // ds:Object, inside another assertion) is how signature wrapping makes the verified and the read node differ.
  const assertions = descendants(doc, NS.assertion, 'Assertion');
  if (assertions.length > 1) throw new SamlError('wrapped', `${assertions.length} Assertion elements, expected one`);
  checkSignatureAlgorithms(doc);

  // Bindings 3.5.5.2: the Destination of a POSTed message must be the location it was received at.
  const destination = attr(response, 'Destination');
  if (destination !== undefined && destination !== sp.acsUrl)
    throw new SamlError('wrong_recipient', 'Response Destination is not this ACS');
  const responseIssuer = text(child(response, NS.assertion, 'Issuer'));
  if (responseIssuer !== undefined && responseIssuer !== idp.entityId)
    throw new SamlError('wrong_issuer', 'Response Issuer is not the configured IdP');
  const statusCode = attr(
    child(child(response, NS.protocol, 'Status') ?? response, NS.protocol, 'StatusCode'),
    'Value',
  );
  if (statusCode !== SUCCESS) throw new SamlError('idp_status', `the IdP answered ${statusCode ?? 'without a status'}`);
  if (assertions.length === 0) throw new SamlError('missing_assertion', 'the Response carries no Assertion');
  const assertion = assertions[0]!;
  if (assertion.parentNode !== response) throw new SamlError('wrapped', 'the Assertion is not a child of the Response');

  // Profiles 4.1.5: this SP does not accept unsolicited Responses (IdP-initiated SSO has no request to bind to and
  // is the login-CSRF vector); every Response answers one of our AuthnRequests.
  const inResponseTo = attr(response, 'InResponseTo');
  if (!inResponseTo) throw new SamlError('unsolicited', 'unsolicited Response (no InResponseTo) refused');
  if (options.expectedRequestId !== undefined && inResponseTo !== options.expectedRequestId)
    throw new SamlError('unknown_request', 'InResponseTo is not the request this browser started');
  // Only a refusal is decided on unsigned data here (a clearer reason for a replay); acceptance needs the atomic
  // consume below.
  const unsignedId = attr(assertion, 'ID');
  if (
    (await stores.consumed.isConsumed(scope, `request:${inResponseTo}`)) ||
    (unsignedId !== undefined && (await stores.consumed.isConsumed(scope, `assertion:${unsignedId}`)))
  )
    throw new SamlError('replayed', 'this Response was already used');

  const saml = new SAML({
    ...nodeSamlConfig(sp, idp),
    cacheProvider: pendingCacheProvider(stores.pending, scope, REQUEST_TTL_MS),
  });
  let signedAssertionXml: string | undefined;
  try {
    const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: options.samlResponse });
    signedAssertionXml = profile?.getAssertionXml?.();
  } catch (err) {
    throw fromNodeSaml(err);
  }
  if (!signedAssertionXml) throw new SamlError('missing_assertion', 'no signed assertion');
  const result = readSignedAssertion(signedAssertionXml, sp, idp, inResponseTo);

  // Profiles 4.1.4.5: a bearer assertion is used once. Both inserts are atomic on the unique index, so two replicas
  // given the same Response (or two Responses to one request) concurrently accept at most one.
  const keepUntil = new Date(Math.max(Date.parse(result.notOnOrAfter ?? ''), Date.now()) + CLOCK_SKEW_MS);
  if (!(await stores.consumed.consume(scope, `assertion:${result.assertionId}`, keepUntil)))
    throw new SamlError('replayed', 'this Assertion was already used');
  const requestKeepUntil = new Date(Date.now() + REQUEST_TTL_MS + CLOCK_SKEW_MS);
  if (!(await stores.consumed.consume(scope, `request:${inResponseTo}`, requestKeepUntil)))
    throw new SamlError('replayed', 'this request was already answered');
  await stores.pending.remove(scope, inResponseTo);
  return result;
}

/** Checks Profiles 4.1.4.2 on the signed assertion and reads the result from it. */
function readSignedAssertion(
  xml: string,
  sp: SamlSpSettings,
  idp: SamlIdpDescriptor,
  inResponseTo: string,
): SamlAssertionResult {
  const assertion = parseXml(xml).documentElement;
  if (!isElement(assertion, NS.assertion, 'Assertion'))
    throw new SamlError('wrapped', 'the signed node is not an Assertion');
  const assertionId = attr(assertion, 'ID');
  if (!assertionId) throw new SamlError('invalid_message', 'Assertion without ID');
  const issuer = text(child(assertion, NS.assertion, 'Issuer'));
  if (issuer !== idp.entityId) throw new SamlError('wrong_issuer', 'Assertion Issuer is not the configured IdP');
  const now = Date.now();
  const subject = child(assertion, NS.assertion, 'Subject');
  const nameIdEl = subject && child(subject, NS.assertion, 'NameID');
  const nameId = text(nameIdEl);
  if (!subject || !nameId) throw new SamlError('invalid_message', 'Assertion without Subject NameID');

  // At least one bearer SubjectConfirmation whose data names our ACS, our request and a future NotOnOrAfter.
  let failure: { status: SamlErrorStatus; message: string } | undefined;
  let confirmationNotOnOrAfter: string | undefined;
  for (const sc of children(subject, NS.assertion, 'SubjectConfirmation')) {
    if (attr(sc, 'Method') !== BEARER) continue;
    const data = child(sc, NS.assertion, 'SubjectConfirmationData');
    const check = confirmationFailure(data, sp, inResponseTo, now);
    if (!check) {
      confirmationNotOnOrAfter = attr(data, 'NotOnOrAfter');
      failure = undefined;
      break;
    }
    failure ??= check;
  }
  if (!confirmationNotOnOrAfter) {
    const { status, message } = failure ?? { status: 'invalid_message', message: 'no bearer SubjectConfirmation' };
    throw new SamlError(status, message);
  }

  const conditionsList = children(assertion, NS.assertion, 'Conditions');
  if (conditionsList.length !== 1) throw new SamlError('invalid_message', 'expected one Conditions');
  const conditions = conditionsList[0]!;
  timeWindow(attr(conditions, 'NotBefore'), attr(conditions, 'NotOnOrAfter'), now);
  // Core 2.5.1.4: every AudienceRestriction must be satisfied, and the Web SSO profile requires one naming us.
  const restrictions = children(conditions, NS.assertion, 'AudienceRestriction');
  if (
    restrictions.length === 0 ||
    !restrictions.every((r) => children(r, NS.assertion, 'Audience').some((a) => text(a) === sp.entityId))
  )
    throw new SamlError('wrong_audience', 'the Assertion is not for this SP');

  const authn = child(assertion, NS.assertion, 'AuthnStatement');
  if (!authn) throw new SamlError('invalid_message', 'Assertion without AuthnStatement');
  const authnContext = child(authn, NS.assertion, 'AuthnContext');
  const authnContextClassRef = text(authnContext && child(authnContext, NS.assertion, 'AuthnContextClassRef'));

  const attributes = new Map<string, string[]>();
  for (const statement of children(assertion, NS.assertion, 'AttributeStatement'))
    for (const attribute of children(statement, NS.assertion, 'Attribute')) {
      const name = attr(attribute, 'Name');
      if (!name) continue;
      const values = children(attribute, NS.assertion, 'AttributeValue').map((v) => v.textContent);
      attributes.set(name, [...(attributes.get(name) ?? []), ...values]);
    }

  const conditionsEnd = attr(conditions, 'NotOnOrAfter');
  const notOnOrAfter =
    conditionsEnd && Date.parse(conditionsEnd) < Date.parse(confirmationNotOnOrAfter)
      ? conditionsEnd
      : confirmationNotOnOrAfter;
  const nameIdFormat = attr(nameIdEl, 'Format');
  const sessionIndex = attr(authn, 'SessionIndex');
  const authnInstant = attr(authn, 'AuthnInstant');
  return {
    issuer,
    nameId,
    ...(nameIdFormat && { nameIdFormat }),
    ...(sessionIndex && { sessionIndex }),
    // fromEntries defines own properties: an attribute named __proto__ stays data, never a prototype.
    attributes: Object.fromEntries(attributes),
    ...(authnContextClassRef && { authnContextClassRef }),
    ...(authnInstant && { authnInstant }),
    inResponseTo,
    assertionId,
    notOnOrAfter,
  };
}

/** Profiles 4.1.4.2 on one bearer SubjectConfirmationData; undefined when it is satisfied. */
function confirmationFailure(
  data: Element | undefined,
  sp: SamlSpSettings,
  inResponseTo: string,
  now: number,
): { status: SamlErrorStatus; message: string } | undefined {
  if (!data) return { status: 'invalid_message', message: 'bearer SubjectConfirmation without data' };
  if (attr(data, 'Recipient') !== sp.acsUrl)
    return { status: 'wrong_recipient', message: 'SubjectConfirmationData Recipient is not this ACS' };
  if (attr(data, 'InResponseTo') !== inResponseTo)
    return { status: 'unknown_request', message: 'SubjectConfirmationData InResponseTo is not our request' };
  // "MUST NOT contain a NotBefore attribute" (Profiles 4.1.4.2), and NotOnOrAfter is required.
  if (attr(data, 'NotBefore') !== undefined)
    return { status: 'invalid_message', message: 'bearer SubjectConfirmationData with NotBefore' };
  const end = attr(data, 'NotOnOrAfter');
  if (!end) return { status: 'invalid_message', message: 'bearer SubjectConfirmationData without NotOnOrAfter' };
  try {
    timeWindow(undefined, end, now);
  } catch (err) {
    if (err instanceof SamlError) return { status: err.status, message: err.message };
    throw err;
  }
  return undefined;
}

function timeWindow(notBefore: string | undefined, notOnOrAfter: string | undefined, now: number): void {
  const parse = (value: string) => {
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) throw new SamlError('invalid_message', `not an xs:dateTime: ${value.slice(0, 40)}`);
    return ms;
  };
  if (notBefore !== undefined && now + CLOCK_SKEW_MS < parse(notBefore))
    throw new SamlError('not_yet_valid', 'the Assertion is not yet valid');
  if (notOnOrAfter !== undefined && now - CLOCK_SKEW_MS >= parse(notOnOrAfter))
    throw new SamlError('expired', 'the Assertion has expired');
}

/** node-saml reports refusals as plain Errors; map their messages onto our closed set. */
function fromNodeSaml(err: unknown): SamlError {
  if (err instanceof SamlError) return err;
  if (err instanceof SamlStatusError) return new SamlError('idp_status', err.message);
  const message = err instanceof Error ? err.message : String(err);
  const table: Array<[RegExp, SamlErrorStatus]> = [
    [/InResponseTo is missing/i, 'unsolicited'],
    [/InResponseTo/i, 'unknown_request'],
    [
      /multiple assertions|more than one element|refer to it's parent|too many signatures|too many transforms/i,
      'wrapped',
    ],
    [/signature|signed/i, 'invalid_signature'],
    [/audience/i, 'wrong_audience'],
    [/expired|no valid subject confirmation/i, 'expired'],
    [/not yet valid/i, 'not_yet_valid'],
    [/issuer/i, 'wrong_issuer'],
    [/missing saml assertion/i, 'missing_assertion'],
  ];
  const status = table.find(([re]) => re.test(message))?.[1] ?? 'invalid_message';
  return new SamlError(status, message);
}
