import { randomBytes, webcrypto } from 'node:crypto';
import { generateServiceProviderMetadata } from '@node-saml/node-saml';
import { XMLSerializer } from '@xmldom/xmldom';
import * as x509 from '@peculiar/x509';
import { attr, BINDING, child, children, NS, parseXml } from './xml';

/** This tenant's SP role towards one upstream IdP. */
export interface SamlSpSettings {
  /** Our SP entityID: the Audience every assertion must name (SAML 2.0 Core 2.5.1.4). */
  entityId: string;
  /** AssertionConsumerService (HTTP-POST): the Recipient and Destination every Response must name. */
  acsUrl: string;
  /** SingleLogoutService (HTTP-Redirect). */
  sloUrl: string;
  /** NameIDPolicy Format asked for in AuthnRequests; omitted when unset, so the IdP uses its configured format. */
  nameIdFormat?: string;
  signAuthnRequests: boolean;
  /** PKCS#8 PEM. Signs AuthnRequests (when signAuthnRequests) and LogoutRequest/LogoutResponse messages. */
  privateKeyPem?: string;
  certificatePem?: string;
}

/**
 * SP metadata (SAML 2.0 Metadata 2.4.4) by node-saml's generator, with two corrections: AuthnRequestsSigned follows
 * `signAuthnRequests` (node-saml sets it whenever a key is present), and SingleLogoutService names the
 * HTTP-Redirect binding that this SP's SLO endpoint speaks (node-saml always writes HTTP-POST).
 * WantAssertionsSigned is always true: an unsigned assertion is never accepted.
 */
export function spMetadata(sp: SamlSpSettings): string {
  const signing = sp.privateKeyPem && sp.certificatePem;
  const xml = generateServiceProviderMetadata({
    issuer: sp.entityId,
    callbackUrl: sp.acsUrl,
    logoutCallbackUrl: sp.sloUrl,
    identifierFormat: sp.nameIdFormat ?? null,
    wantAssertionsSigned: true,
    ...(signing && { privateKey: sp.privateKeyPem, publicCerts: sp.certificatePem, signatureAlgorithm: 'sha256' }),
  });
  const doc = parseXml(xml);
  const descriptor = child(doc.documentElement, NS.metadata, 'SPSSODescriptor');
  if (descriptor) {
    descriptor.setAttribute('AuthnRequestsSigned', String(sp.signAuthnRequests && Boolean(signing)));
    for (const slo of children(descriptor, NS.metadata, 'SingleLogoutService'))
      if (attr(slo, 'Location') === sp.sloUrl) slo.setAttribute('Binding', BINDING.redirect);
  }
  return new XMLSerializer().serializeToString(doc);
}

const RSA: RsaHashedKeyGenParams = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
};

/**
 * A self-signed RSA-2048 / SHA-256 certificate for the SP's signing key, valid ten years. In SAML metadata a
 * certificate only carries the public key (SAML 2.0 Metadata 2.4.1.1, KeyInfo): no CA or expiry is evaluated by
 * IdPs that trust metadata, so self-signed is the norm.
 */
export async function generateSpKeyPair(
  commonName: string,
): Promise<{ privateKeyPem: string; certificatePem: string }> {
  x509.cryptoProvider.set(webcrypto as Crypto);
  const keys = (await webcrypto.subtle.generateKey(RSA, true, ['sign', 'verify'])) as CryptoKeyPair;
  const notBefore = new Date(Date.now() - 60_000);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    // A positive 16-byte serial (RFC 5280 4.1.2.2: at most 20 octets, positive).
    serialNumber: `01${randomBytes(15).toString('hex')}`,
    name: [{ CN: [commonName] }],
    notBefore,
    notAfter: new Date(notBefore.getTime() + 10 * 365 * 24 * 3600 * 1000),
    signingAlgorithm: RSA,
    keys,
    extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const privateKeyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;
  return { privateKeyPem, certificatePem: cert.toString('pem') + '\n' };
}
