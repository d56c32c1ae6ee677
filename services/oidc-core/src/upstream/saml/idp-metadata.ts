import { SamlError } from './saml-error';
import { attr, BINDING, certificateToPem, child, children, descendants, isElement, NS, parseXml, text } from './xml';

/** What this SP needs of one upstream IdP, read from its SAML 2.0 metadata (or entered by an admin). */
export interface SamlIdpDescriptor {
  entityId: string;
  ssoRedirectUrl?: string;
  ssoPostUrl?: string;
  sloRedirectUrl?: string;
  /** PEM or base64 DER. Several during a key rollover: a signature by any one of them is accepted. */
  signingCertificates: string[];
}

const MAX_METADATA_BYTES = 1024 * 1024;

/**
 * Reads an IdP's metadata (SAML 2.0 Metadata 2.4.3 IDPSSODescriptor): the entityID, the SingleSignOnService and
 * SingleLogoutService locations by binding, and the signing certificates: KeyDescriptor with `use="signing"` or with
 * no `use` (Metadata 2.4.1.1: absent `use` means the key serves both purposes). An EntitiesDescriptor is accepted
 * when it holds exactly one IdP. The metadata's own signature is not checked: the admin supplies the document
 * through an authenticated channel and its certificates become the trust anchor.
 */
export function parseIdpMetadata(xml: string): SamlIdpDescriptor {
  if (Buffer.byteLength(xml, 'utf8') > MAX_METADATA_BYTES)
    throw new SamlError('invalid_metadata', 'invalid metadata: too large');
  const doc = parseXml(xml, 'invalid_metadata');
  const root = doc.documentElement;
  let entity: Element | undefined;
  if (isElement(root, NS.metadata, 'EntityDescriptor')) entity = root;
  else if (isElement(root, NS.metadata, 'EntitiesDescriptor')) {
    const idps = descendants(root, NS.metadata, 'EntityDescriptor').filter((e) =>
      child(e, NS.metadata, 'IDPSSODescriptor'),
    );
    if (idps.length !== 1)
      throw new SamlError('invalid_metadata', `invalid metadata: ${idps.length} IdP entities, expected one`);
    entity = idps[0];
  }
  if (!entity) throw new SamlError('invalid_metadata', 'invalid metadata: root is not an EntityDescriptor');
  const entityId = attr(entity, 'entityID');
  if (!entityId) throw new SamlError('invalid_metadata', 'invalid metadata: no entityID');
  const idp = children(entity, NS.metadata, 'IDPSSODescriptor').find((d) =>
    (attr(d, 'protocolSupportEnumeration') ?? '').split(/\s+/).includes(NS.protocol),
  );
  if (!idp) throw new SamlError('invalid_metadata', 'invalid metadata: no SAML 2.0 IDPSSODescriptor');

  const signingCertificates: string[] = [];
  for (const kd of children(idp, NS.metadata, 'KeyDescriptor')) {
    const use = attr(kd, 'use');
    if (use !== undefined && use !== 'signing') continue;
    const keyInfo = child(kd, NS.dsig, 'KeyInfo');
    for (const data of keyInfo ? children(keyInfo, NS.dsig, 'X509Data') : [])
      for (const c of children(data, NS.dsig, 'X509Certificate')) {
        const value = text(c);
        if (value) signingCertificates.push(certificateToPem(value));
      }
  }
  if (signingCertificates.length === 0)
    throw new SamlError('invalid_metadata', 'invalid metadata: no signing certificate');

  const location = (name: string, binding: string) => {
    const service = children(idp, NS.metadata, name).find((s) => attr(s, 'Binding') === binding);
    const url = attr(service, 'Location');
    if (url === undefined) return undefined;
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
      throw new SamlError('invalid_metadata', `invalid metadata: ${name} Location is not an http(s) URL`);
    return url;
  };
  const ssoRedirectUrl = location('SingleSignOnService', BINDING.redirect);
  const ssoPostUrl = location('SingleSignOnService', BINDING.post);
  if (!ssoRedirectUrl && !ssoPostUrl)
    throw new SamlError('invalid_metadata', 'invalid metadata: no SingleSignOnService with HTTP-Redirect or HTTP-POST');
  const sloRedirectUrl = location('SingleLogoutService', BINDING.redirect);
  return {
    entityId,
    ...(ssoRedirectUrl && { ssoRedirectUrl }),
    ...(ssoPostUrl && { ssoPostUrl }),
    ...(sloRedirectUrl && { sloRedirectUrl }),
    signingCertificates: [...new Set(signingCertificates)],
  };
}
