/**
 * The SAML 2.0 SP core against the real store (one database for this file) and responses signed the way a Node IdP
 * signs them (xml-crypto with a test IdP key). A valid Response is accepted with its attributes; each rule of
 * SAML 2.0 Profiles 4.1.4 and each wrapping shape is refused with its own reason.
 */
import { createSign, createVerify, randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import type { Model } from 'mongoose';
import { createIndexes, type Database, type Models } from '@idp/db';
import { createLogger } from '@idp/logger';
import { openTestDatabase } from '@idp/testing';
import { samlRequestCacheSchema } from '../../../libs/db/src/models/saml-request-cache';
import {
  finishLogout,
  finishSignIn,
  generateSpKeyPair,
  handleIdpLogoutRequest,
  mongoSamlStores,
  parseIdpMetadata,
  SamlError,
  spMetadata,
  startLogout,
  startSignIn,
  type SamlCacheRecord,
  type SamlErrorStatus,
  type SamlIdpDescriptor,
  type SamlSpSettings,
  type SamlStores,
} from '../src/upstream/saml';

const NS_P = 'urn:oasis:names:tc:SAML:2.0:protocol';
const NS_A = 'urn:oasis:names:tc:SAML:2.0:assertion';
const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
const SHA1 = 'http://www.w3.org/2000/09/xmldsig#sha1';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';

const IDP_ENTITY = 'http://127.0.0.1:8081/realms/acme';
const TENANT = 4101;
const OTHER_TENANT = 4102;
const ALIAS = 'acme-keycloak';

let db: Database;
let model: Model<SamlCacheRecord>;
let stores: SamlStores;
let idpKeys: { privateKeyPem: string; certificatePem: string };
let otherKeys: { privateKeyPem: string; certificatePem: string };
let spKeys: { privateKeyPem: string; certificatePem: string };
let sp: SamlSpSettings;
let idp: SamlIdpDescriptor;

beforeAll(async () => {
  db = await openTestDatabase('saml');
  model = db.connection.model<SamlCacheRecord>('SamlRequestCache', samlRequestCacheSchema);
  await createIndexes(
    { SamlRequestCache: model } as unknown as Models,
    createLogger({ service: 'test', level: 'silent' }),
  );
  stores = mongoSamlStores(model);
  [idpKeys, otherKeys, spKeys] = await Promise.all([
    generateSpKeyPair('test idp'),
    generateSpKeyPair('someone else'),
    generateSpKeyPair('oidc-core sp'),
  ]);
  sp = {
    entityId: 'https://id.example.test/t/acme/saml/acme-keycloak',
    acsUrl: 'https://id.example.test/t/acme/saml/acme-keycloak/acs',
    sloUrl: 'https://id.example.test/t/acme/saml/acme-keycloak/slo',
    signAuthnRequests: true,
    ...spKeys,
  };
  idp = parseIdpMetadata(keycloakDescriptor(idpKeys.certificatePem));
}, 60_000);
afterAll(async () => {
  await db.connection.dropDatabase();
  await db.close();
});

// ---------------------------------------------------------------------------------------------------------------
// The IdP side: what Keycloak (or any Node IdP using xml-crypto) posts to the ACS.

const iso = (ms: number) => new Date(Date.now() + ms).toISOString();
const newId = () => `_${randomBytes(16).toString('hex')}`;
const certBody = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');

function keycloakDescriptor(certPem: string, extra = ''): string {
  const base = `${IDP_ENTITY}/protocol/saml`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${IDP_ENTITY}">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo>
        <ds:KeyName>Xo9Sgh4NOG3HBsnBJ1k1Bvs0lZ0mdr_Yg8dPP6W3ZBg</ds:KeyName>
        <ds:X509Data>
          <ds:X509Certificate>${certBody(certPem)}</ds:X509Certificate>
        </ds:X509Data>
      </ds:KeyInfo>
    </md:KeyDescriptor>${extra}
    <md:ArtifactResolutionService Binding="urn:oasis:names:tc:SAML:2.0:bindings:SOAP" Location="${base}/resolve" index="0"></md:ArtifactResolutionService>
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${base}"></md:SingleLogoutService>
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${base}"></md:SingleLogoutService>
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact" Location="${base}"></md:SingleLogoutService>
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:SOAP" Location="${base}"></md:SingleLogoutService>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:transient</md:NameIDFormat>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified</md:NameIDFormat>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${base}"></md:SingleSignOnService>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${base}"></md:SingleSignOnService>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:SOAP" Location="${base}"></md:SingleSignOnService>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact" Location="${base}"></md:SingleSignOnService>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
}

interface AssertionOptions {
  id?: string;
  issuer?: string;
  nameId?: string;
  inResponseTo?: string | null;
  recipient?: string;
  audience?: string;
  notBefore?: string;
  notOnOrAfter?: string;
  scdNotOnOrAfter?: string;
  attributes?: Record<string, string[]>;
}

function assertionXml(o: AssertionOptions): string {
  const irt = o.inResponseTo ? ` InResponseTo="${o.inResponseTo}"` : '';
  const attrs = Object.entries(o.attributes ?? {})
    .map(
      ([name, values]) =>
        `<saml:Attribute Name="${name}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${values
          .map(
            (v) =>
              `<saml:AttributeValue xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="xs:string">${v}</saml:AttributeValue>`,
          )
          .join('')}</saml:Attribute>`,
    )
    .join('');
  return (
    `<saml:Assertion xmlns:saml="${NS_A}" ID="${o.id ?? newId()}" IssueInstant="${iso(0)}" Version="2.0">` +
    `<saml:Issuer>${o.issuer ?? IDP_ENTITY}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">${o.nameId ?? 'G-4a1f0c2e'}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${irt} NotOnOrAfter="${o.scdNotOnOrAfter ?? iso(300_000)}" Recipient="${o.recipient ?? sp.acsUrl}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${o.notBefore ?? iso(-5_000)}" NotOnOrAfter="${o.notOnOrAfter ?? iso(60_000)}"><saml:AudienceRestriction><saml:Audience>${o.audience ?? sp.entityId}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(-2_000)}" SessionIndex="5d3b2a1c::8e7f" SessionNotOnOrAfter="${iso(36_000_000)}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attrs ? `<saml:AttributeStatement>${attrs}</saml:AttributeStatement>` : '') +
    `</saml:Assertion>`
  );
}

interface SignOptions {
  key?: string;
  cert?: string;
  signatureAlgorithm?: string;
  digestAlgorithm?: string;
}

/** An enveloped signature after the Issuer of the root element (SAML 2.0 Core 5.4.1), as xml-crypto makes it. */
function sign(xml: string, rootName: 'Assertion' | 'Response', o: SignOptions = {}): string {
  const sig = new SignedXml({
    privateKey: o.key ?? idpKeys.privateKeyPem,
    publicCert: o.cert ?? idpKeys.certificatePem,
    signatureAlgorithm: (o.signatureAlgorithm ?? RSA_SHA256) as typeof RSA_SHA256,
    canonicalizationAlgorithm: EXC_C14N,
  });
  sig.addReference({
    xpath: `/*[local-name(.)='${rootName}']`,
    transforms: [ENVELOPED, EXC_C14N],
    digestAlgorithm: o.digestAlgorithm ?? SHA256,
  });
  sig.computeSignature(xml, {
    location: { reference: `/*[local-name(.)='${rootName}']/*[local-name(.)='Issuer']`, action: 'after' },
  });
  return sig.getSignedXml();
}

interface ResponseOptions {
  inResponseTo?: string | null;
  destination?: string | null;
  extensions?: string;
  status?: string;
}

function responseXml(body: string, o: ResponseOptions = {}): string {
  const irt = o.inResponseTo ? ` InResponseTo="${o.inResponseTo}"` : '';
  const dest = o.destination === null ? '' : ` Destination="${o.destination ?? sp.acsUrl}"`;
  return (
    `<samlp:Response xmlns:samlp="${NS_P}" xmlns:saml="${NS_A}"${dest} ID="${newId()}"${irt} IssueInstant="${iso(0)}" Version="2.0">` +
    `<saml:Issuer>${IDP_ENTITY}</saml:Issuer>` +
    (o.extensions ? `<samlp:Extensions>${o.extensions}</samlp:Extensions>` : '') +
    `<samlp:Status><samlp:StatusCode Value="${o.status ?? 'urn:oasis:names:tc:SAML:2.0:status:Success'}"/></samlp:Status>` +
    body +
    `</samlp:Response>`
  );
}

const b64 = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

/** A pending AuthnRequest of TENANT/ALIAS, through the module's own start. */
async function pendingRequest(scope = { tenantId: TENANT, providerAlias: ALIAS }): Promise<string> {
  return (await startSignIn(sp, idp, stores, { ...scope, relayState: 'rs' })).requestId;
}

/** A well-formed signed Response to `requestId`, with overrides. */
function signedResponse(requestId: string, a: AssertionOptions = {}, r: ResponseOptions = {}, s: SignOptions = {}) {
  return b64(
    responseXml(sign(assertionXml({ inResponseTo: requestId, ...a }), 'Assertion', s), {
      inResponseTo: requestId,
      ...r,
    }),
  );
}

const finish = (samlResponse: string, scope = { tenantId: TENANT, providerAlias: ALIAS }, expectedRequestId?: string) =>
  finishSignIn(sp, idp, stores, { ...scope, samlResponse, ...(expectedRequestId && { expectedRequestId }) });

async function refusal(p: Promise<unknown>): Promise<SamlErrorStatus> {
  try {
    await p;
  } catch (err) {
    if (err instanceof SamlError) return err.status;
    throw err;
  }
  throw new Error('accepted, expected a refusal');
}

// ---------------------------------------------------------------------------------------------------------------

describe('metadata', () => {
  it('reads a Keycloak-shaped IdP descriptor: entityID, bindings, signing certificates only', () => {
    const encryptionOnly = `
    <md:KeyDescriptor use="encryption"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certBody(otherKeys.certificatePem)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:KeyDescriptor><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certBody(spKeys.certificatePem)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`;
    const parsed = parseIdpMetadata(keycloakDescriptor(idpKeys.certificatePem, encryptionOnly));
    expect(parsed).toEqual({
      entityId: IDP_ENTITY,
      ssoRedirectUrl: `${IDP_ENTITY}/protocol/saml`,
      ssoPostUrl: `${IDP_ENTITY}/protocol/saml`,
      sloRedirectUrl: `${IDP_ENTITY}/protocol/saml`,
      // use="signing" and no use (both purposes); the encryption-only key is left out.
      signingCertificates: [idpKeys.certificatePem, spKeys.certificatePem].map((p) =>
        expect.stringContaining(certBody(p).slice(0, 64)),
      ),
    });
    expect(parsed.signingCertificates.join()).not.toContain(certBody(otherKeys.certificatePem).slice(0, 64));
  });

  it('refuses metadata with a DTD, without an IdP role, or without a signing certificate', () => {
    const doc = keycloakDescriptor(idpKeys.certificatePem);
    const withDtd = doc.replace('<md:EntityDescriptor', '<!DOCTYPE x [<!ENTITY e "boom">]><md:EntityDescriptor');
    expect(() => parseIdpMetadata(withDtd)).toThrow(/DTD/);
    expect(() => parseIdpMetadata(doc.replaceAll('IDPSSODescriptor', 'SPSSODescriptor'))).toThrow('invalid metadata');
    expect(() => parseIdpMetadata(doc.replace('use="signing"', 'use="encryption"'))).toThrow('no signing certificate');
    expect(() => parseIdpMetadata('<md:EntityDescriptor')).toThrow(SamlError);
  });

  it('SP metadata from node-saml reads back: ACS, redirect SLO, signing key, AuthnRequestsSigned, WantAssertionsSigned', () => {
    const xml = spMetadata(sp);
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    const md = 'urn:oasis:names:tc:SAML:2.0:metadata';
    const one = (name: string) => doc.getElementsByTagNameNS(md, name)[0]!;
    expect(doc.documentElement.getAttribute('entityID')).toBe(sp.entityId);
    expect(one('SPSSODescriptor').getAttribute('AuthnRequestsSigned')).toBe('true');
    expect(one('SPSSODescriptor').getAttribute('WantAssertionsSigned')).toBe('true');
    expect(one('AssertionConsumerService').getAttribute('Location')).toBe(sp.acsUrl);
    expect(one('AssertionConsumerService').getAttribute('Binding')).toBe(
      'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
    );
    expect(one('SingleLogoutService').getAttribute('Location')).toBe(sp.sloUrl);
    expect(one('SingleLogoutService').getAttribute('Binding')).toBe(
      'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
    );
    expect(one('KeyDescriptor').getAttribute('use')).toBe('signing');
    expect(one('KeyDescriptor').textContent.replace(/\s/g, '')).toBe(certBody(sp.certificatePem!));

    const unsignedSp = spMetadata({
      ...sp,
      signAuthnRequests: false,
      privateKeyPem: undefined,
      certificatePem: undefined,
    });
    const doc2 = new DOMParser().parseFromString(unsignedSp, 'text/xml');
    expect(doc2.getElementsByTagNameNS(md, 'SPSSODescriptor')[0]!.getAttribute('AuthnRequestsSigned')).toBe('false');
    expect(doc2.getElementsByTagNameNS(md, 'KeyDescriptor')).toHaveLength(0);
  });
});

describe('AuthnRequest (HTTP-Redirect)', () => {
  it('is signed with the SP key, names our ACS and issuer, and is pending in the store for this tenant and IdP', async () => {
    const { redirectUrl, requestId } = await startSignIn(sp, idp, stores, {
      tenantId: TENANT,
      providerAlias: ALIAS,
      relayState: 'state-123',
      forceAuthn: true,
    });
    const url = new URL(redirectUrl);
    expect(`${url.origin}${url.pathname}`).toBe(idp.ssoRedirectUrl);
    const request = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
    const el = new DOMParser().parseFromString(request, 'text/xml').documentElement;
    expect(el.localName).toBe('AuthnRequest');
    expect(el.getAttribute('ID')).toBe(requestId);
    expect(el.getAttribute('Destination')).toBe(idp.ssoRedirectUrl);
    expect(el.getAttribute('AssertionConsumerServiceURL')).toBe(sp.acsUrl);
    expect(el.getAttribute('ForceAuthn')).toBe('true');
    expect(el.getElementsByTagNameNS(NS_A, 'Issuer')[0]!.textContent).toBe(sp.entityId);
    expect(url.searchParams.get('RelayState')).toBe('state-123');
    // Bindings 3.4.4.1: the signature covers SAMLRequest, RelayState and SigAlg as URL-encoded.
    expect(url.searchParams.get('SigAlg')).toBe(RSA_SHA256);
    const raw = Object.fromEntries(
      url.search
        .slice(1)
        .split('&')
        .map((p) => p.split('=') as [string, string]),
    );
    const signed = `SAMLRequest=${raw.SAMLRequest}&RelayState=${raw.RelayState}&SigAlg=${raw.SigAlg}`;
    expect(
      createVerify('sha256').update(signed).verify(sp.certificatePem!, url.searchParams.get('Signature')!, 'base64'),
    ).toBe(true);

    const row = await model.findOne({ key: requestId }).lean();
    expect(row).toMatchObject({ tenantId: TENANT, providerAlias: ALIAS, kind: 'request' });
    expect(row!.expiresAt.getTime() - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(row!.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(10 * 60_000);
  });
});

describe('Response (HTTP-POST to the ACS)', () => {
  it('accepts a signed assertion and returns what it says, read from the signed bytes', async () => {
    const requestId = await pendingRequest();
    const assertionId = newId();
    const result = await finish(
      signedResponse(requestId, {
        id: assertionId,
        nameId: 'G-alice',
        attributes: { email: ['alice@acme.test'], groups: ['admins', 'ops'] },
      }),
      undefined,
      requestId,
    );
    expect(result).toEqual({
      issuer: IDP_ENTITY,
      nameId: 'G-alice',
      nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
      sessionIndex: '5d3b2a1c::8e7f',
      attributes: { email: ['alice@acme.test'], groups: ['admins', 'ops'] },
      authnContextClassRef: 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport',
      authnInstant: expect.any(String),
      inResponseTo: requestId,
      assertionId,
      notOnOrAfter: expect.any(String),
    });
    // The request is answered: no longer pending.
    expect(await stores.pending.get({ tenantId: TENANT, providerAlias: ALIAS }, requestId)).toBeNull();
  });

  it('accepts a Response signed as a whole around a signed assertion', async () => {
    const requestId = await pendingRequest();
    const inner = sign(assertionXml({ inResponseTo: requestId }), 'Assertion');
    const xml = sign(responseXml(inner, { inResponseTo: requestId }), 'Response');
    expect((await finish(b64(xml))).inResponseTo).toBe(requestId);
  });

  it('refuses an unsigned assertion, even inside a signed Response', async () => {
    const r1 = await pendingRequest();
    expect(await refusal(finish(b64(responseXml(assertionXml({ inResponseTo: r1 }), { inResponseTo: r1 }))))).toBe(
      'invalid_signature',
    );
    const r2 = await pendingRequest();
    const signedOuter = sign(responseXml(assertionXml({ inResponseTo: r2 }), { inResponseTo: r2 }), 'Response');
    expect(await refusal(finish(b64(signedOuter)))).toBe('invalid_signature');
  });

  it('refuses an assertion signed by a key that is not the IdP’s', async () => {
    const requestId = await pendingRequest();
    const forged = signedResponse(requestId, {}, {}, { key: otherKeys.privateKeyPem, cert: otherKeys.certificatePem });
    expect(await refusal(finish(forged))).toBe('invalid_signature');
  });

  it('refuses an assertion changed after signing', async () => {
    const requestId = await pendingRequest();
    const xml = responseXml(sign(assertionXml({ inResponseTo: requestId, nameId: 'G-alice' }), 'Assertion'), {
      inResponseTo: requestId,
    });
    expect(await refusal(finish(b64(xml.replace('G-alice', 'G-admin'))))).toBe('invalid_signature');
  });

  describe('signature wrapping (XSW)', () => {
    const evil = (requestId: string, id = newId()) => assertionXml({ id, inResponseTo: requestId, nameId: 'G-admin' });

    it('signed assertion moved into samlp:Extensions, unsigned evil assertion in its place', async () => {
      const requestId = await pendingRequest();
      const genuine = sign(assertionXml({ inResponseTo: requestId, nameId: 'G-mallory' }), 'Assertion');
      const xml = responseXml(evil(requestId), { inResponseTo: requestId, extensions: genuine });
      expect(await refusal(finish(b64(xml)))).toBe('wrapped');
    });

    it('evil assertion carrying the genuine signature, the signed assertion inside its ds:Object', async () => {
      const requestId = await pendingRequest();
      const id = newId();
      const genuine = sign(assertionXml({ id, inResponseTo: requestId, nameId: 'G-mallory' }), 'Assertion');
      const signature = /<Signature[\s\S]*<\/Signature>/.exec(genuine)![0];
      const wrapped = signature.replace('</Signature>', `<Object>${genuine}</Object></Signature>`);
      const forged = evil(requestId, id).replace('</saml:Issuer>', `</saml:Issuer>${wrapped}`);
      expect(await refusal(finish(b64(responseXml(forged, { inResponseTo: requestId }))))).toBe('wrapped');
    });

    it('evil assertion next to the signed one', async () => {
      const requestId = await pendingRequest();
      const genuine = sign(assertionXml({ inResponseTo: requestId, nameId: 'G-mallory' }), 'Assertion');
      for (const body of [evil(requestId) + genuine, genuine + evil(requestId)])
        expect(await refusal(finish(b64(responseXml(body, { inResponseTo: requestId }))))).toBe('wrapped');
    });

    it('evil assertion nested inside the signed one', async () => {
      const requestId = await pendingRequest();
      const genuine = sign(assertionXml({ inResponseTo: requestId, nameId: 'G-mallory' }), 'Assertion');
      const nested = genuine.replace('</saml:Subject>', `</saml:Subject>${evil(requestId)}`);
      expect(await refusal(finish(b64(responseXml(nested, { inResponseTo: requestId }))))).toBe('wrapped');
    });

    it('evil assertion with a copied signature and no genuine assertion left', async () => {
      const requestId = await pendingRequest();
      const id = newId();
      const genuine = sign(assertionXml({ id, inResponseTo: requestId, nameId: 'G-mallory' }), 'Assertion');
      const signature = /<Signature[\s\S]*<\/Signature>/.exec(genuine)![0];
      const forged = evil(requestId, id).replace('</saml:Issuer>', `</saml:Issuer>${signature}`);
      expect(await refusal(finish(b64(responseXml(forged, { inResponseTo: requestId }))))).toBe('invalid_signature');
    });
  });

  it('refuses an EncryptedAssertion (not supported)', async () => {
    const requestId = await pendingRequest();
    const encrypted = `<saml:EncryptedAssertion><xenc:EncryptedData xmlns:xenc="http://www.w3.org/2001/04/xmlenc#"/></saml:EncryptedAssertion>`;
    expect(await refusal(finish(b64(responseXml(encrypted, { inResponseTo: requestId }))))).toBe('encrypted_assertion');
  });

  it('refuses a replayed Response, sequentially and concurrently, and a second answer to one request', async () => {
    const scope = { tenantId: TENANT, providerAlias: ALIAS };
    const r1 = await pendingRequest();
    const response = signedResponse(r1);
    await finish(response);
    expect(await refusal(finish(response))).toBe('replayed');
    // Even if the request were pending again, the consumed assertion ID refuses it.
    await stores.pending.save(scope, r1, new Date(), 60_000);
    expect(await refusal(finish(response))).toBe('replayed');
    // A fresh assertion for an already answered request.
    await stores.pending.save(scope, r1, new Date(), 60_000);
    expect(await refusal(finish(signedResponse(r1)))).toBe('replayed');

    // Two replicas given the same Response at once: one accepts.
    const r2 = await pendingRequest();
    const twice = signedResponse(r2);
    const outcomes = await Promise.allSettled([finish(twice), finish(twice), finish(twice)]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes)
      if (o.status === 'rejected') expect((o.reason as SamlError).status).toMatch(/^(replayed|unknown_request)$/);
  });

  it('refuses a wrong Audience', async () => {
    const requestId = await pendingRequest();
    expect(await refusal(finish(signedResponse(requestId, { audience: 'https://other-sp.test' })))).toBe(
      'wrong_audience',
    );
  });

  it('refuses a wrong Recipient and a wrong Destination', async () => {
    const r1 = await pendingRequest();
    expect(await refusal(finish(signedResponse(r1, { recipient: 'https://evil.test/acs' })))).toBe('wrong_recipient');
    const r2 = await pendingRequest();
    expect(await refusal(finish(signedResponse(r2, {}, { destination: 'https://evil.test/acs' })))).toBe(
      'wrong_recipient',
    );
  });

  it('refuses an expired or not yet valid assertion, allowing under a minute of skew', async () => {
    const r1 = await pendingRequest();
    expect(await refusal(finish(signedResponse(r1, { notOnOrAfter: iso(-120_000) })))).toBe('expired');
    const r2 = await pendingRequest();
    expect(await refusal(finish(signedResponse(r2, { scdNotOnOrAfter: iso(-120_000) })))).toBe('expired');
    const r3 = await pendingRequest();
    expect(await refusal(finish(signedResponse(r3, { notBefore: iso(300_000) })))).toBe('not_yet_valid');
    const r4 = await pendingRequest();
    await expect(
      finish(signedResponse(r4, { notOnOrAfter: iso(-20_000), scdNotOnOrAfter: iso(-20_000) })),
    ).resolves.toMatchObject({
      inResponseTo: r4,
    });
  });

  it('refuses an InResponseTo pending for another IdP or another tenant, an unknown one, or another browser’s', async () => {
    const otherIdp = await pendingRequest({ tenantId: TENANT, providerAlias: 'other-idp' });
    expect(await refusal(finish(signedResponse(otherIdp)))).toBe('unknown_request');
    const otherTenant = await pendingRequest({ tenantId: OTHER_TENANT, providerAlias: ALIAS });
    expect(await refusal(finish(signedResponse(otherTenant)))).toBe('unknown_request');
    expect(await refusal(finish(signedResponse(newId())))).toBe('unknown_request');
    const mine = await pendingRequest();
    const theirs = await pendingRequest();
    expect(await refusal(finish(signedResponse(theirs), undefined, mine))).toBe('unknown_request');
    // The signed SubjectConfirmationData must name the same request as the (unsigned) Response.
    const a = await pendingRequest();
    const b = await pendingRequest();
    expect(await refusal(finish(signedResponse(a, {}, { inResponseTo: b })))).toBe('unknown_request');
  });

  it('refuses a Response to a request issued more than ten minutes ago', async () => {
    const scope = { tenantId: TENANT, providerAlias: ALIAS };
    const stale = newId();
    // Issued 11 minutes ago with the 10-minute lifetime: expired, whether or not the server runs TTL indexes.
    await stores.pending.save(scope, stale, new Date(Date.now() - 11 * 60_000), 10 * 60_000);
    expect(await refusal(finish(signedResponse(stale)))).toBe('unknown_request');
  });

  it('refuses an unsolicited (IdP-initiated) Response', async () => {
    expect(await refusal(finish(signedResponse('', { inResponseTo: null }, { inResponseTo: null })))).toBe(
      'unsolicited',
    );
  });

  it('refuses a DTD before parsing', async () => {
    const requestId = await pendingRequest();
    const xml = responseXml(sign(assertionXml({ inResponseTo: requestId }), 'Assertion'), { inResponseTo: requestId });
    const withDtd = `<?xml version="1.0"?><!DOCTYPE samlp:Response [<!ENTITY x "G-admin">]>${xml}`;
    expect(await refusal(finish(b64(withDtd)))).toBe('dtd_forbidden');
  });

  it('refuses SHA-1 signatures and digests', async () => {
    const r1 = await pendingRequest();
    expect(await refusal(finish(signedResponse(r1, {}, {}, { signatureAlgorithm: RSA_SHA1 })))).toBe('weak_algorithm');
    const r2 = await pendingRequest();
    expect(await refusal(finish(signedResponse(r2, {}, {}, { digestAlgorithm: SHA1 })))).toBe('weak_algorithm');
  });

  it('refuses an assertion from another issuer, and reports an IdP error status', async () => {
    const r1 = await pendingRequest();
    expect(await refusal(finish(signedResponse(r1, { issuer: 'https://evil.test/idp' })))).toBe('wrong_issuer');
    const r2 = await pendingRequest();
    const denied = responseXml('', { inResponseTo: r2, status: 'urn:oasis:names:tc:SAML:2.0:status:Requester' });
    expect(await refusal(finish(b64(denied)))).toBe('idp_status');
    expect(await refusal(finish('not base64 !'))).toBe('invalid_message');
  });
});

// ---------------------------------------------------------------------------------------------------------------

/** What an IdP sends over HTTP-Redirect: deflated, base64, signed over the encoded query (Bindings 3.4.4.1). */
function redirectQuery(
  param: 'SAMLRequest' | 'SAMLResponse',
  xml: string,
  relayState?: string,
  key = idpKeys.privateKeyPem,
) {
  let q = `${param}=${encodeURIComponent(deflateRawSync(xml).toString('base64'))}`;
  if (relayState !== undefined) q += `&RelayState=${encodeURIComponent(relayState)}`;
  q += `&SigAlg=${encodeURIComponent(RSA_SHA256)}`;
  return `${q}&Signature=${encodeURIComponent(createSign('sha256').update(q).sign(key, 'base64'))}`;
}

describe('Single Logout (HTTP-Redirect)', () => {
  const logoutRequest = (destination = sp.sloUrl) =>
    `<samlp:LogoutRequest xmlns:samlp="${NS_P}" xmlns:saml="${NS_A}" ID="${newId()}" Version="2.0" IssueInstant="${iso(0)}" Destination="${destination}" NotOnOrAfter="${iso(60_000)}">` +
    `<saml:Issuer>${IDP_ENTITY}</saml:Issuer><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">G-alice</saml:NameID>` +
    `<samlp:SessionIndex>5d3b2a1c::8e7f</samlp:SessionIndex></samlp:LogoutRequest>`;

  it('SP-initiated: a signed LogoutRequest to the IdP', async () => {
    const url = new URL(
      await startLogout(sp, idp, { nameId: 'G-alice', sessionIndex: '5d3b2a1c::8e7f', relayState: 'back' }),
    );
    const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
    expect(xml).toContain('G-alice');
    expect(xml).toContain('5d3b2a1c::8e7f');
    expect(url.searchParams.get('SigAlg')).toBe(RSA_SHA256);
    const q = url.search.slice(1);
    const signed = q.slice(0, q.indexOf('&Signature='));
    expect(
      createVerify('sha256').update(signed).verify(sp.certificatePem!, url.searchParams.get('Signature')!, 'base64'),
    ).toBe(true);
  });

  it('IdP-initiated: verifies the IdP signature and answers with a signed LogoutResponse', async () => {
    const out = await handleIdpLogoutRequest(sp, idp, redirectQuery('SAMLRequest', logoutRequest(), 'rs/1'));
    expect(out).toMatchObject({ nameId: 'G-alice', sessionIndex: '5d3b2a1c::8e7f' });
    const url = new URL(out.responseRedirectUrl);
    expect(url.searchParams.get('RelayState')).toBe('rs/1');
    const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLResponse')!, 'base64')).toString('utf8');
    expect(xml).toContain('urn:oasis:names:tc:SAML:2.0:status:Success');
    const q = url.search.slice(1);
    expect(
      createVerify('sha256')
        .update(q.slice(0, q.indexOf('&Signature=')))
        .verify(sp.certificatePem!, url.searchParams.get('Signature')!, 'base64'),
    ).toBe(true);
  });

  it('refuses an unsigned, tampered, foreign-key or misaddressed LogoutRequest', async () => {
    const good = redirectQuery('SAMLRequest', logoutRequest(), 'rs');
    expect(await refusal(handleIdpLogoutRequest(sp, idp, good.slice(0, good.indexOf('&SigAlg'))))).toBe(
      'invalid_signature',
    );
    expect(await refusal(handleIdpLogoutRequest(sp, idp, good.replace('RelayState=rs', 'RelayState=rx')))).toBe(
      'invalid_signature',
    );
    const foreign = redirectQuery('SAMLRequest', logoutRequest(), 'rs', otherKeys.privateKeyPem);
    expect(await refusal(handleIdpLogoutRequest(sp, idp, foreign))).toBe('invalid_signature');
    const elsewhere = redirectQuery('SAMLRequest', logoutRequest('https://other.test/slo'));
    expect(await refusal(handleIdpLogoutRequest(sp, idp, elsewhere))).toBe('wrong_recipient');
    const dtd = redirectQuery('SAMLRequest', `<!DOCTYPE x [<!ENTITY e "x">]>${logoutRequest()}`);
    expect(await refusal(handleIdpLogoutRequest(sp, idp, dtd))).toBe('dtd_forbidden');
  });

  it('finishLogout accepts the IdP’s signed Success and refuses a failure status or a bad signature', async () => {
    const response = (status: string) =>
      `<samlp:LogoutResponse xmlns:samlp="${NS_P}" xmlns:saml="${NS_A}" ID="${newId()}" Version="2.0" IssueInstant="${iso(0)}" Destination="${sp.sloUrl}" InResponseTo="${newId()}">` +
      `<saml:Issuer>${IDP_ENTITY}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:${status}"/></samlp:Status></samlp:LogoutResponse>`;
    await expect(finishLogout(sp, idp, redirectQuery('SAMLResponse', response('Success')))).resolves.toBeUndefined();
    expect(await refusal(finishLogout(sp, idp, redirectQuery('SAMLResponse', response('Responder'))))).toBe(
      'idp_status',
    );
    const forged = redirectQuery('SAMLResponse', response('Success'), undefined, otherKeys.privateKeyPem);
    expect(await refusal(finishLogout(sp, idp, forged))).toBe('invalid_signature');
  });
});
