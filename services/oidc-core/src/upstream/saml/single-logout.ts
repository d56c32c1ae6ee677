import { verify, X509Certificate } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { SAML } from '@node-saml/node-saml';
import type { SamlIdpDescriptor } from './idp-metadata';
import { SamlError } from './saml-error';
import type { SamlSpSettings } from './sp-metadata';
import { CLOCK_SKEW_MS, newSamlId, nodeSamlConfig } from './web-sso';
import {
  attr,
  certificateToPem,
  child,
  children,
  decodeBase64,
  isElement,
  MAX_MESSAGE_BYTES,
  NS,
  parseXml,
  rejectDtd,
  SIGNATURE_ALGORITHMS,
  text,
} from './xml';

const UNSPECIFIED = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

function logoutSaml(sp: SamlSpSettings, idp: SamlIdpDescriptor): SAML {
  if (!idp.sloRedirectUrl)
    throw new SamlError('invalid_metadata', 'the IdP has no SingleLogoutService with the HTTP-Redirect binding');
  return new SAML({
    ...nodeSamlConfig(sp, idp),
    entryPoint: idp.sloRedirectUrl,
    logoutUrl: idp.sloRedirectUrl,
    generateUniqueId: newSamlId,
    // Profiles 4.4.3.1: LogoutRequest and LogoutResponse MUST be signed when the binding allows it; the IdP decides
    // whether it insists. Signed whenever the SP has a key.
    ...(sp.privateKeyPem && { privateKey: sp.privateKeyPem }),
  });
}

/** SP-initiated Single Logout (Profiles 4.4): the LogoutRequest over HTTP-Redirect for the session the IdP named. */
export async function startLogout(
  sp: SamlSpSettings,
  idp: SamlIdpDescriptor,
  options: { nameId: string; nameIdFormat?: string; sessionIndex?: string; relayState: string },
): Promise<string> {
  return logoutSaml(sp, idp).getLogoutUrlAsync(
    {
      issuer: sp.entityId,
      nameID: options.nameId,
      nameIDFormat: options.nameIdFormat ?? UNSPECIFIED,
      ...(options.sessionIndex && { sessionIndex: options.sessionIndex }),
    },
    options.relayState,
    {},
  );
}

/**
 * An IdP-initiated LogoutRequest over HTTP-Redirect. `rawQuery` is the query string exactly as received (after `?`):
 * the signature covers the URL-encoded bytes as sent (Bindings 3.4.4.1), which re-encoding parsed values would not
 * reproduce. The signature is required. Answers with a LogoutResponse redirect (signed when the SP has a key).
 */
export async function handleIdpLogoutRequest(
  sp: SamlSpSettings,
  idp: SamlIdpDescriptor,
  rawQuery: string,
): Promise<{ nameId: string; nameIdFormat?: string; sessionIndex?: string; responseRedirectUrl: string }> {
  const { xml, relayState } = verifyRedirectMessage(rawQuery, 'SAMLRequest', idp);
  const request = parseXml(xml).documentElement;
  if (!isElement(request, NS.protocol, 'LogoutRequest')) throw new SamlError('invalid_message', 'not a LogoutRequest');
  const id = attr(request, 'ID');
  if (!id) throw new SamlError('invalid_message', 'LogoutRequest without ID');
  checkIssuerAndDestination(request, sp, idp);
  const notOnOrAfter = attr(request, 'NotOnOrAfter');
  if (notOnOrAfter !== undefined && Date.now() - CLOCK_SKEW_MS >= Date.parse(notOnOrAfter))
    throw new SamlError('expired', 'the LogoutRequest has expired');
  const nameIdEl = child(request, NS.assertion, 'NameID');
  const nameId = text(nameIdEl);
  if (!nameId) throw new SamlError('invalid_message', 'LogoutRequest without NameID (EncryptedID is not supported)');
  const nameIdFormat = attr(nameIdEl, 'Format');
  const sessionIndex = text(children(request, NS.protocol, 'SessionIndex')[0]);
  const responseRedirectUrl = await logoutSaml(sp, idp).getLogoutResponseUrlAsync(
    { ID: id, issuer: sp.entityId, nameID: nameId, nameIDFormat: nameIdFormat ?? UNSPECIFIED },
    relayState ?? '',
    {},
    true,
  );
  return { nameId, ...(nameIdFormat && { nameIdFormat }), ...(sessionIndex && { sessionIndex }), responseRedirectUrl };
}

/**
 * The IdP's LogoutResponse to our LogoutRequest, over HTTP-Redirect (`rawQuery` as for handleIdpLogoutRequest):
 * signature required, Issuer and Destination ours, status Success. Its InResponseTo is not matched to a stored
 * request: SP-initiated logout keeps no server state, and a forged success could only end a session early.
 */
export async function finishLogout(sp: SamlSpSettings, idp: SamlIdpDescriptor, rawQuery: string): Promise<void> {
  const { xml } = verifyRedirectMessage(rawQuery, 'SAMLResponse', idp);
  const response = parseXml(xml).documentElement;
  if (!isElement(response, NS.protocol, 'LogoutResponse'))
    throw new SamlError('invalid_message', 'not a LogoutResponse');
  checkIssuerAndDestination(response, sp, idp);
  const status = attr(child(child(response, NS.protocol, 'Status') ?? response, NS.protocol, 'StatusCode'), 'Value');
  if (status !== SUCCESS) throw new SamlError('idp_status', `the IdP answered ${status ?? 'without a status'}`);
  return Promise.resolve();
}

function checkIssuerAndDestination(message: Element, sp: SamlSpSettings, idp: SamlIdpDescriptor): void {
  if (text(child(message, NS.assertion, 'Issuer')) !== idp.entityId)
    throw new SamlError('wrong_issuer', 'Issuer is not the configured IdP');
  // Bindings 3.4.5.2: a signed message's Destination must be present and be where it was received.
  if (attr(message, 'Destination') !== sp.sloUrl)
    throw new SamlError('wrong_recipient', 'Destination is not this SLO endpoint');
}

/**
 * HTTP-Redirect binding (Bindings 3.4.4.1): verifies Signature over `SAMLRequest=…[&RelayState=…]&SigAlg=…` with one
 * of the IdP's certificates, then inflates (bounded) and returns the message.
 */
function verifyRedirectMessage(
  rawQuery: string,
  param: 'SAMLRequest' | 'SAMLResponse',
  idp: SamlIdpDescriptor,
): { xml: string; relayState?: string } {
  const pairs = rawQuery
    .replace(/^\?/, '')
    .split('&')
    .filter(Boolean)
    .map((p) => {
      const i = p.indexOf('=');
      return i < 0 ? ([p, ''] as const) : ([p.slice(0, i), p.slice(i + 1)] as const);
    });
  const raw = (name: string): string | undefined => {
    const found = pairs.filter(([k]) => k === name);
    if (found.length > 1) throw new SamlError('invalid_message', `${name} given twice`);
    return found.length === 1 ? found[0]![1] : undefined;
  };
  const decode = (value: string) => {
    try {
      return decodeURIComponent(value.replace(/\+/g, ' '));
    } catch {
      throw new SamlError('invalid_message', 'malformed query string');
    }
  };
  const message = raw(param);
  if (!message) throw new SamlError('invalid_message', `${param} missing`);
  const relay = raw('RelayState');
  const sigAlg = raw('SigAlg');
  const signature = raw('Signature');
  if (sigAlg === undefined || signature === undefined)
    throw new SamlError('invalid_signature', `unsigned ${param}: a signature is required`);
  const hash = SIGNATURE_ALGORITHMS.get(decode(sigAlg));
  if (!hash) throw new SamlError('weak_algorithm', `SigAlg ${decode(sigAlg).slice(0, 80)} refused`);
  const signed = Buffer.from(
    `${param}=${message}${relay === undefined ? '' : `&RelayState=${relay}`}&SigAlg=${sigAlg}`,
  );
  const signatureBytes = decodeBase64(decode(signature), 2048);
  const valid = idp.signingCertificates.some((cert) =>
    verify(hash, signed, new X509Certificate(certificateToPem(cert)).publicKey, signatureBytes),
  );
  if (!valid)
    throw new SamlError('invalid_signature', `${param} signature does not verify with the IdP's certificates`);
  let xml: string;
  try {
    xml = inflateRawSync(decodeBase64(decode(message)), { maxOutputLength: MAX_MESSAGE_BYTES }).toString('utf8');
  } catch (err) {
    if (err instanceof SamlError) throw err;
    throw new SamlError('invalid_message', `${param} is not DEFLATE-compressed or too large`);
  }
  rejectDtd(xml);
  return { xml, ...(relay !== undefined && { relayState: decode(relay) }) };
}
