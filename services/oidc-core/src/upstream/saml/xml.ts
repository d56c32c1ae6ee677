import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { SamlError, type SamlErrorStatus } from './saml-error';

export const NS = {
  protocol: 'urn:oasis:names:tc:SAML:2.0:protocol',
  assertion: 'urn:oasis:names:tc:SAML:2.0:assertion',
  metadata: 'urn:oasis:names:tc:SAML:2.0:metadata',
  dsig: 'http://www.w3.org/2000/09/xmldsig#',
  xenc: 'http://www.w3.org/2001/04/xmlenc#',
} as const;

export const BINDING = {
  redirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
  post: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
} as const;

/** Upper bound on any incoming SAML message, decoded (a Keycloak Response with attributes is a few KiB). */
export const MAX_MESSAGE_BYTES = 256 * 1024;

/**
 * Signature algorithms we accept from an IdP. RSA with SHA-256 or SHA-512 only: SHA-1 signatures are forgeable in
 * practice (chosen-prefix collisions, SHAttered/Shambles), and the XML Signature 1.1 recommendation makes SHA-256 the
 * mandatory baseline. Keycloak, ADFS, Entra ID, Okta, Shibboleth and SimpleSAMLphp all sign with rsa-sha256 by
 * default. HMAC is excluded: a shared-key "signature" made with the IdP's public certificate as key is a known forgery.
 */
export const SIGNATURE_ALGORITHMS: ReadonlyMap<string, 'sha256' | 'sha512'> = new Map([
  ['http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', 'sha256'],
  ['http://www.w3.org/2001/04/xmldsig-more#rsa-sha512', 'sha512'],
]);
const DIGEST_ALGORITHMS = new Set([
  'http://www.w3.org/2001/04/xmlenc#sha256',
  'http://www.w3.org/2001/04/xmlenc#sha512',
]);
/**
 * Canonicalization and transforms: exclusive or inclusive C14N *without comments* and the enveloped-signature
 * transform. A `#WithComments` variant lets a comment split a NameID so that the signed and the read values differ.
 */
const C14N_ALGORITHMS = new Set([
  'http://www.w3.org/2001/10/xml-exc-c14n#',
  'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
]);
const TRANSFORMS = new Set([...C14N_ALGORITHMS, 'http://www.w3.org/2000/09/xmldsig#enveloped-signature']);

/**
 * Refuses any markup declaration before an XML parser sees the text: `<!DOCTYPE`, `<!ENTITY`, `<!ELEMENT`… Only
 * comments and CDATA sections may start with `<!`. Checked on the decoded text, so no parser option can be missed.
 */
export function rejectDtd(xml: string, status: SamlErrorStatus = 'dtd_forbidden'): void {
  if (/<!(?!--|\[CDATA\[)/.test(xml)) throw new SamlError(status, 'XML with a DTD or markup declaration is refused');
}

/** Parses XML strictly: any parser error or warning is a refusal (xmldom otherwise recovers from broken markup). */
export function parseXml(xml: string, status: SamlErrorStatus = 'invalid_message'): Document {
  rejectDtd(xml, status === 'invalid_metadata' ? status : 'dtd_forbidden');
  const errors: string[] = [];
  const record = (msg: unknown) => {
    errors.push(String(msg));
  };
  const doc = new DOMParser({ errorHandler: { warning: record, error: record, fatalError: record } }).parseFromString(
    xml,
    'text/xml',
  );
  // xmldom's typings say Document; a failed parse leaves documentElement null.
  if (errors.length > 0 || !(doc.documentElement as Element | null))
    throw new SamlError(status, `not well-formed XML${errors[0] ? `: ${errors[0].split('\n')[0]}` : ''}`);
  return doc;
}

export function isElement(node: Node | null, ns: string, localName: string): node is Element {
  return node?.nodeType === 1 && (node as Element).namespaceURI === ns && (node as Element).localName === localName;
}

/** Direct element children of `parent` with this namespace and local name. */
export function children(parent: Element, ns: string, localName: string): Element[] {
  const out: Element[] = [];
  for (let n = parent.firstChild; n; n = n.nextSibling) if (isElement(n, ns, localName)) out.push(n);
  return out;
}

export function child(parent: Element, ns: string, localName: string): Element | undefined {
  return children(parent, ns, localName)[0];
}

/** Every element in the document with this namespace and local name, wherever it sits. */
export function descendants(root: Document | Element, ns: string, localName: string): Element[] {
  return Array.from(root.getElementsByTagNameNS(ns, localName));
}

/** The element's text: every text node below it, so that a comment cannot cut a value short. */
export function text(el: Element | undefined): string | undefined {
  const value = el?.textContent.trim();
  return value ? value : undefined;
}

export function attr(el: Element | undefined, name: string): string | undefined {
  return el?.hasAttribute(name) ? (el.getAttribute(name) ?? undefined) : undefined;
}

/**
 * Every ds:Signature in the document must use the allow-listed algorithms and sign exactly one same-document
 * reference (SAML 2.0 Core 5.4.2: one Reference, URI `#` + the ID of the signed element).
 */
export function checkSignatureAlgorithms(doc: Document): void {
  for (const sig of descendants(doc, NS.dsig, 'Signature')) {
    const signedInfo = child(sig, NS.dsig, 'SignedInfo');
    if (!signedInfo) throw new SamlError('invalid_signature', 'Signature without SignedInfo');
    const c14n = attr(child(signedInfo, NS.dsig, 'CanonicalizationMethod'), 'Algorithm');
    if (!c14n || !C14N_ALGORITHMS.has(c14n)) throw new SamlError('weak_algorithm', `canonicalization ${c14n} refused`);
    const method = attr(child(signedInfo, NS.dsig, 'SignatureMethod'), 'Algorithm');
    if (!method || !SIGNATURE_ALGORITHMS.has(method))
      throw new SamlError('weak_algorithm', `signature algorithm ${method} refused`);
    const references = children(signedInfo, NS.dsig, 'Reference');
    if (references.length !== 1 || !attr(references[0], 'URI')?.startsWith('#'))
      throw new SamlError('wrapped', 'a signature must sign exactly one same-document reference');
    const reference = references[0]!;
    const digest = attr(child(reference, NS.dsig, 'DigestMethod'), 'Algorithm');
    if (!digest || !DIGEST_ALGORITHMS.has(digest)) throw new SamlError('weak_algorithm', `digest ${digest} refused`);
    const transforms = child(reference, NS.dsig, 'Transforms');
    for (const t of transforms ? children(transforms, NS.dsig, 'Transform') : []) {
      const alg = attr(t, 'Algorithm');
      if (!alg || !TRANSFORMS.has(alg)) throw new SamlError('weak_algorithm', `transform ${alg} refused`);
    }
  }
}

/** A certificate given as PEM or as bare base64 DER (as in metadata's ds:X509Certificate), returned as PEM. */
export function certificateToPem(cert: string): string {
  const body = cert
    .replace(/-----(BEGIN|END) CERTIFICATE-----/g, '')
    .replace(/\s+/g, '')
    .trim();
  if (!/^[A-Za-z0-9+/]+=*$/.test(body)) throw new SamlError('invalid_metadata', 'certificate is not base64');
  const pem = `-----BEGIN CERTIFICATE-----\n${body.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
  } catch {
    throw new SamlError('invalid_metadata', 'certificate is not a DER X.509 certificate');
  }
  return pem;
}

/** Strict base64 (the HTTP-POST and HTTP-Redirect bindings carry base64 of the message, SAML Bindings 3.4.4, 3.5.4). */
export function decodeBase64(value: string, maxBytes = MAX_MESSAGE_BYTES): Buffer {
  const compact = value.replace(/[\r\n\t ]/g, '');
  if (!compact || !/^[A-Za-z0-9+/]+=*$/.test(compact) || compact.length > Math.ceil((maxBytes * 4) / 3) + 4)
    throw new SamlError('invalid_message', 'SAML message is not base64 or too large');
  return Buffer.from(compact, 'base64');
}
