/**
 * A tenant's SAML IdP as the SAML SP core (saml/) needs it: the IdP's descriptor from its metadata (a document given
 * by the admin, or fetched from its URL through the SSRF-safe outbound client and re-read hourly, so a certificate the
 * IdP rotated in its metadata is picked up), and our SP settings with their signing key, made on first use and stored
 * sealed on the provider.
 */
import { LRUCache } from 'lru-cache';
import type { Models, UpstreamProviderDoc } from '@idp/db';
import { outboundRequest, type OutboundPolicy } from '@idp/http';
import type { KeyEncryptionKey } from '@idp/tokens';
import { outsideTenantSlot } from '../tenants/request-scope';
import { UpstreamError, sealedSecretContext } from './oidc-upstream';
import { generateSpKeyPair, parseIdpMetadata, SamlError, type SamlIdpDescriptor, type SamlSpSettings } from './saml';

/** How long fetched metadata is used before it is read again. */
const METADATA_TTL_MS = 60 * 60_000;

const descriptors = new LRUCache<string, SamlIdpDescriptor>({ max: 1000, ttl: METADATA_TTL_MS });
/** Metadata read less than this long ago is not read again after a failed signature (a bound on refetching). */
const REREAD_AFTER_MS = 60_000;

/**
 * A signature no certificate of the cached metadata verifies: the IdP may have rotated its key. Metadata from a URL
 * is read again at the next sign-in (at most once a minute), instead of failing until the hourly refresh.
 */
export function forgetDescriptor(tenantId: number, provider: UpstreamProviderDoc): void {
  const key = `${tenantId}:${provider.alias}:${new Date(provider.updatedAt).getTime()}`;
  if (!provider.saml?.metadataUrl) return;
  const age = METADATA_TTL_MS - descriptors.getRemainingTTL(key);
  if (age >= REREAD_AFTER_MS) descriptors.delete(key);
}

export async function idpDescriptor(
  tenantId: number,
  provider: UpstreamProviderDoc,
  policy: OutboundPolicy,
): Promise<SamlIdpDescriptor> {
  const saml = provider.saml;
  if (!saml) throw new UpstreamError('server_error', `the provider ${provider.alias} is not a SAML IdP`);
  const key = `${tenantId}:${provider.alias}:${new Date(provider.updatedAt).getTime()}`;
  const cached = descriptors.get(key);
  if (cached) return cached;
  let xml = saml.metadataXml;
  if (!xml && saml.metadataUrl) {
    const url = saml.metadataUrl;
    let answer;
    try {
      answer = await outsideTenantSlot(() =>
        outboundRequest(url, { timeoutMs: 5_000, connectTimeoutMs: 2_000, maxResponseBytes: 1024 * 1024, policy }),
      );
    } catch (err) {
      throw new UpstreamError(
        'temporarily_unavailable',
        `the metadata of ${provider.alias} could not be read: ${(err as Error).message}`,
      );
    }
    if (answer.status !== 200 || answer.truncated)
      throw new UpstreamError('temporarily_unavailable', `the metadata of ${provider.alias} answered ${answer.status}`);
    xml = answer.body;
  }
  if (!xml) throw new UpstreamError('server_error', `the provider ${provider.alias} has no metadata`);
  let descriptor: SamlIdpDescriptor;
  try {
    descriptor = parseIdpMetadata(xml);
  } catch (err) {
    throw new UpstreamError(
      'server_error',
      `the metadata of ${provider.alias} is not usable: ${err instanceof SamlError ? err.message : 'unreadable'}`,
    );
  }
  if (!descriptor.ssoRedirectUrl)
    throw new UpstreamError('server_error', `the metadata of ${provider.alias} has no HTTP-Redirect sign-in service`);
  descriptors.set(key, descriptor);
  return descriptor;
}

export const samlBase = (issuer: string, alias: string) => `${issuer}/upstream/${alias}/saml`;

/** Our SP settings at this IdP; the signing key pair is made on the first use and kept (sealed) on the provider. */
export async function spSettings(
  models: Models,
  kek: KeyEncryptionKey,
  tenantId: number,
  issuer: string,
  provider: UpstreamProviderDoc,
): Promise<SamlSpSettings> {
  const saml = provider.saml;
  if (!saml) throw new UpstreamError('server_error', `the provider ${provider.alias} is not a SAML IdP`);
  let sealed = saml.spPrivateKeySealed;
  let certificatePem = saml.spCertificate;
  if (!sealed || !certificatePem) {
    const pair = await generateSpKeyPair(`${issuer} ${provider.alias}`);
    const made = kek.encrypt(pair.privateKeyPem, sealedSecretContext(tenantId, provider.alias, 'sp_key'));
    // Only the first writer wins: concurrent first uses all end up with the same stored key.
    await models.UpstreamProvider.updateOne(
      { tenantId, alias: provider.alias, 'saml.spPrivateKeySealed': { $exists: false } },
      { $set: { 'saml.spPrivateKeySealed': made, 'saml.spCertificate': pair.certificatePem } },
      { timestamps: false },
    );
    const now = await models.UpstreamProvider.findOne({ tenantId, alias: provider.alias }).lean();
    sealed = now?.saml?.spPrivateKeySealed;
    certificatePem = now?.saml?.spCertificate;
    if (!sealed || !certificatePem) throw new UpstreamError('server_error', 'the SP key could not be stored');
  }
  const base = samlBase(issuer, provider.alias);
  return {
    entityId: saml.spEntityId ?? `${base}/metadata`,
    acsUrl: `${base}/acs`,
    sloUrl: `${base}/slo`,
    ...(saml.nameIdFormat ? { nameIdFormat: saml.nameIdFormat } : {}),
    signAuthnRequests: saml.signAuthnRequests,
    privateKeyPem: kek.decrypt(sealed, sealedSecretContext(tenantId, provider.alias, 'sp_key')),
    certificatePem,
  };
}
