/**
 * Upstream identity providers of a tenant: the OpenID Connect providers and SAML 2.0 IdPs its people sign in
 * through. Trusting one is a tenant-level decision: the tenant scopes (auth.tenants.list to read,
 * auth.tenants.update to change). Secrets (the client secret, our private keys) are sealed with the key-encryption
 * key, bound to the tenant and provider, and never returned; the answer says only whether one is set.
 */
import { generateKeyPairSync } from 'node:crypto';
import { z } from 'zod';
import {
  UPSTREAM_CLIENT_AUTH_METHODS,
  UPSTREAM_MAPPER_TARGETS,
  type UpstreamProviderDoc,
  type UpstreamOidcSettings,
  type UpstreamSamlSettings,
} from '@idp/db';
import { isDuplicateKeyError, problems } from '@idp/errors';
import { defineRoute, type RouteDef } from '../openapi/route';
import { isoDate, page, pageQuery, tenantParams } from '../openapi/schemas';
import { loadTenant, pageOf, type RouteDeps } from './deps';
import { isTenantUrl, TENANT_URL_RULE } from './outbound-urls';
import { removeUpstreamLinks } from '../domain/upstream-unlink';

/** Words our own URLs under /upstream/ use: never an alias. */
const RESERVED_ALIASES = new Set(['callback', 'link', 'create']);

const alias = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, '1 to 40 lower-case letters, digits and hyphens, starting with a letter or digit')
  .refine((v) => !RESERVED_ALIASES.has(v), 'is a reserved word')
  .describe('Names the provider in URLs and in the identity_provider claim; immutable');

/** https, or http to a loopback host (local development: whether it is reachable is the platform's policy). */
const upstreamUrl = z
  .string()
  .max(2048)
  .refine((v) => isTenantUrl(v), TENANT_URL_RULE);

const domain = z
  .string()
  .max(253)
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'a lower-case DNS domain name');

const claimName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'letters, digits and underscores')
  .refine((v) => !['__proto__', 'constructor', 'prototype'].includes(v), 'is a reserved name');

const mapper = z
  .object({
    source: z
      .string()
      .min(1)
      .max(256)
      .describe('Upstream claim (dot path into nested objects) or SAML attribute name; `*` for every claim'),
    target: z.enum(UPSTREAM_MAPPER_TARGETS),
    claim: claimName.optional().describe('customClaims and claim targets: the name written'),
    values: z
      .array(z.object({ upstream: z.string().min(1).max(256), local: z.string().min(1).max(256) }).strict())
      .max(200)
      .optional()
      .describe('groups and roles targets: upstream value → local group or role name'),
  })
  .strict()
  .superRefine((m, ctx) => {
    if (m.target === 'claim' && m.claim === 'email_verified')
      ctx.addIssue({
        code: 'custom',
        message: 'email_verified follows the email mapper (true only when the provider vouched for the address)',
        path: ['claim'],
      });
    if ((m.target === 'customClaims' || m.target === 'claim') && !m.claim)
      ctx.addIssue({ code: 'custom', message: `a ${m.target} mapper needs claim`, path: ['claim'] });
    if ((m.target === 'groups' || m.target === 'roles') && !m.values?.length)
      ctx.addIssue({ code: 'custom', message: `a ${m.target} mapper needs values`, path: ['values'] });
    if (m.source === '*' && m.target !== 'providerClaims')
      ctx.addIssue({ code: 'custom', message: 'source * is for the providerClaims target only', path: ['source'] });
  })
  .meta({ id: 'UpstreamMapper' });

const AMR = ['pwd', 'otp', 'hwk', 'swk', 'sc', 'mfa'] as const;
const ACR = ['urn:idp:acr:pwd', 'urn:idp:acr:mfa'] as const;

const common = {
  displayName: z.string().min(1).max(100).describe('Shown on the login page: "Sign in with <displayName>"'),
  enabled: z.boolean().describe('A disabled provider signs nobody in, from the next request on'),
  emailDomains: z.array(domain).max(100).describe('Home-realm discovery: addresses in these domains sign in here'),
  authoritativeEmailDomains: z
    .array(domain)
    .max(100)
    .describe(
      'A first sign-in asserting a VERIFIED address in one of these domains links to the one local account with that address. Empty: never link by email',
    ),
  jitProvisioning: z.boolean().describe('Create an account on a first sign-in that links to none'),
  exclusive: z.boolean().describe("The tenant's people sign in only through this provider (no password form)"),
  mappers: z.array(mapper).max(100),
  amrMap: z
    .array(z.object({ upstream: z.string().min(1).max(256), amr: z.array(z.enum(AMR)).max(6) }).strict())
    .max(50)
    .describe('Upstream amr value → amr values recorded here; unmapped values record nothing'),
  acrMap: z
    .array(z.object({ upstream: z.string().min(1).max(512), acr: z.enum(ACR) }).strict())
    .max(50)
    .describe(
      'Upstream acr (SAML AuthnContextClassRef) → acr here; unmapped: urn:idp:acr:federated, which meets no requirement',
    ),
};

const oidcBody = z
  .object({
    issuer: upstreamUrl.describe("The OP's issuer identifier, exactly as its ID tokens carry it"),
    discoveryUrl: upstreamUrl.optional().describe('Default: <issuer>/.well-known/openid-configuration'),
    authorizationEndpoint: upstreamUrl.optional(),
    tokenEndpoint: upstreamUrl.optional(),
    userinfoEndpoint: upstreamUrl.optional(),
    jwksUri: upstreamUrl.optional(),
    endSessionEndpoint: upstreamUrl.optional(),
    clientId: z.string().min(1).max(256),
    clientSecret: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe('Write-only; stored sealed. Needed by client_secret_basic and client_secret_post'),
    clientAuthMethod: z.enum(UPSTREAM_CLIENT_AUTH_METHODS).default('client_secret_basic'),
    scopes: z
      .array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/))
      .max(30)
      .default(['openid', 'profile', 'email']),
    pkce: z.boolean().default(true),
    acrValues: z.array(z.string().min(1).max(512)).max(10).optional(),
    subjectClaim: claimName.default('sub').describe('The stable subject claim (Entra ID: oid)'),
    fetchUserinfo: z.boolean().default(false),
  })
  .strict();

const samlBody = z
  .object({
    metadataUrl: upstreamUrl
      .optional()
      .describe("Where the IdP's metadata is published (re-read for certificate rotation)"),
    metadataXml: z
      .string()
      .min(1)
      .max(512 * 1024)
      .optional()
      .describe("The IdP's metadata document"),
    spEntityId: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe('Our entity id at this IdP; default our SP metadata URL'),
    signAuthnRequests: z.boolean().default(false),
    nameIdFormat: z.string().min(1).max(256).optional(),
  })
  .strict()
  .refine((s) => Boolean(s.metadataUrl) !== Boolean(s.metadataXml), 'give exactly one of metadataUrl and metadataXml');

const createBody = z
  .object({
    alias,
    type: z.enum(['oidc', 'saml']),
    displayName: common.displayName,
    enabled: common.enabled.default(true),
    oidc: oidcBody.optional(),
    saml: samlBody.optional(),
    emailDomains: common.emailDomains.default([]),
    authoritativeEmailDomains: common.authoritativeEmailDomains.default([]),
    jitProvisioning: common.jitProvisioning.default(true),
    exclusive: common.exclusive.default(false),
    mappers: common.mappers.default([]),
    amrMap: common.amrMap.default([]),
    acrMap: common.acrMap.default([]),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.type === 'oidc' && !b.oidc)
      ctx.addIssue({ code: 'custom', message: 'an oidc provider needs oidc', path: ['oidc'] });
    if (b.type === 'saml' && !b.saml)
      ctx.addIssue({ code: 'custom', message: 'a saml provider needs saml', path: ['saml'] });
    if (b.type === 'oidc' && b.saml)
      ctx.addIssue({ code: 'custom', message: 'an oidc provider has no saml', path: ['saml'] });
    if (b.type === 'saml' && b.oidc)
      ctx.addIssue({ code: 'custom', message: 'a saml provider has no oidc', path: ['oidc'] });
    const m = b.oidc?.clientAuthMethod;
    if (b.oidc && (m === 'client_secret_basic' || m === 'client_secret_post') && !b.oidc.clientSecret)
      ctx.addIssue({ code: 'custom', message: `${m} needs clientSecret`, path: ['oidc', 'clientSecret'] });
  });

/** PATCH: the alias and type are immutable; oidc and saml are replaced whole (a clientSecret left out is kept). */
const patchBody = z
  .object({
    displayName: common.displayName.optional(),
    enabled: common.enabled.optional(),
    oidc: oidcBody.optional(),
    saml: samlBody.optional(),
    emailDomains: common.emailDomains.optional(),
    authoritativeEmailDomains: common.authoritativeEmailDomains.optional(),
    jitProvisioning: common.jitProvisioning.optional(),
    exclusive: common.exclusive.optional(),
    mappers: common.mappers.optional(),
    amrMap: common.amrMap.optional(),
    acrMap: common.acrMap.optional(),
  })
  .strict();

export const upstreamProviderSchema = z
  .object({
    alias: z.string(),
    type: z.enum(['oidc', 'saml']),
    displayName: z.string(),
    enabled: z.boolean(),
    oidc: z
      .object({
        issuer: z.string(),
        discoveryUrl: z.string().optional(),
        authorizationEndpoint: z.string().optional(),
        tokenEndpoint: z.string().optional(),
        userinfoEndpoint: z.string().optional(),
        jwksUri: z.string().optional(),
        endSessionEndpoint: z.string().optional(),
        clientId: z.string(),
        clientSecretSet: z.boolean().describe('Whether a client secret is stored (it is never returned)'),
        clientAuthMethod: z.enum(UPSTREAM_CLIENT_AUTH_METHODS),
        scopes: z.array(z.string()),
        pkce: z.boolean(),
        acrValues: z.array(z.string()).optional(),
        subjectClaim: z.string(),
        fetchUserinfo: z.boolean(),
      })
      .optional(),
    saml: z
      .object({
        metadataUrl: z.string().optional(),
        metadataXml: z.string().optional(),
        spEntityId: z.string(),
        signAuthnRequests: z.boolean(),
        nameIdFormat: z.string().optional(),
        spCertificate: z.string().optional().describe('Our SP signing certificate (PEM), also in our SP metadata'),
      })
      .optional(),
    emailDomains: z.array(z.string()),
    authoritativeEmailDomains: z.array(z.string()),
    jitProvisioning: z.boolean(),
    exclusive: z.boolean(),
    mappers: z.array(mapper),
    amrMap: common.amrMap,
    acrMap: common.acrMap,
    endpoints: z
      .object({
        redirectUri: z.string().optional().describe('OIDC: register this redirect URI at the OP'),
        postLogoutRedirectUri: z.string().optional().describe('OIDC: register this post-logout redirect URI at the OP'),
        jwksUri: z.string().optional().describe('OIDC private_key_jwt: our public keys, for the OP'),
        spMetadataUrl: z.string().optional().describe('SAML: our SP metadata, for the IdP'),
        acsUrl: z.string().optional().describe('SAML: our assertion consumer service (HTTP-POST)'),
        sloUrl: z.string().optional().describe('SAML: our single logout service (HTTP-Redirect)'),
      })
      .describe('What to register at the upstream provider'),
    createdAt: isoDate,
    updatedAt: isoDate,
  })
  .meta({ id: 'UpstreamProvider' });

type OidcInput = z.infer<typeof oidcBody>;
type SamlInput = z.infer<typeof samlBody>;

const BASE = '/tenants/:tenantId/upstream-providers';
const TAG = 'Upstream identity providers';
const params = tenantParams.extend({ alias: z.string().max(64) }).strict();

export function upstreamProviderRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;
  const kek = deps.keyStore.kek;
  const seal = (tenantId: number, a: string, what: string, value: string) =>
    kek.encrypt(value, `upstream:${tenantId}:${a}:${what}`);
  const base = (tenantId: number, a: string) => `${deps.publicBaseUrl ?? ''}/auth/${tenantId}/upstream/${a}`;

  function view(doc: UpstreamProviderDoc) {
    const b = base(doc.tenantId, doc.alias);
    const o = doc.oidc;
    const s = doc.saml;
    return {
      alias: doc.alias,
      type: doc.type,
      displayName: doc.displayName,
      enabled: doc.enabled,
      ...(o
        ? {
            oidc: {
              issuer: o.issuer,
              ...(o.discoveryUrl ? { discoveryUrl: o.discoveryUrl } : {}),
              ...(o.authorizationEndpoint ? { authorizationEndpoint: o.authorizationEndpoint } : {}),
              ...(o.tokenEndpoint ? { tokenEndpoint: o.tokenEndpoint } : {}),
              ...(o.userinfoEndpoint ? { userinfoEndpoint: o.userinfoEndpoint } : {}),
              ...(o.jwksUri ? { jwksUri: o.jwksUri } : {}),
              ...(o.endSessionEndpoint ? { endSessionEndpoint: o.endSessionEndpoint } : {}),
              clientId: o.clientId,
              clientSecretSet: Boolean(o.clientSecretSealed),
              clientAuthMethod: o.clientAuthMethod,
              scopes: o.scopes,
              pkce: o.pkce,
              ...(o.acrValues?.length ? { acrValues: o.acrValues } : {}),
              subjectClaim: o.subjectClaim,
              fetchUserinfo: o.fetchUserinfo,
            },
          }
        : {}),
      ...(s
        ? {
            saml: {
              ...(s.metadataUrl ? { metadataUrl: s.metadataUrl } : {}),
              ...(s.metadataXml ? { metadataXml: s.metadataXml } : {}),
              spEntityId: s.spEntityId ?? `${b}/saml/metadata`,
              signAuthnRequests: s.signAuthnRequests,
              ...(s.nameIdFormat ? { nameIdFormat: s.nameIdFormat } : {}),
              ...(s.spCertificate ? { spCertificate: s.spCertificate } : {}),
            },
          }
        : {}),
      emailDomains: doc.emailDomains,
      authoritativeEmailDomains: doc.authoritativeEmailDomains,
      jitProvisioning: doc.jitProvisioning,
      exclusive: doc.exclusive,
      mappers: doc.mappers,
      amrMap: doc.amrMap,
      acrMap: doc.acrMap,
      endpoints:
        doc.type === 'oidc'
          ? {
              redirectUri: `${b}/callback`,
              postLogoutRedirectUri: `${b}/logged-out`,
              ...(o?.clientAuthMethod === 'private_key_jwt' ? { jwksUri: `${b}/jwks` } : {}),
            }
          : { spMetadataUrl: `${b}/saml/metadata`, acsUrl: `${b}/saml/acs`, sloUrl: `${b}/saml/slo` },
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt,
    };
  }

  /** The stored OIDC settings: secrets sealed; a private_key_jwt key made once and kept. */
  function oidcSettings(
    tenantId: number,
    a: string,
    input: OidcInput,
    before: UpstreamOidcSettings | undefined,
  ): UpstreamOidcSettings {
    const { clientSecret, ...rest } = input;
    const secretMethod = rest.clientAuthMethod !== 'private_key_jwt';
    const clientSecretSealed = clientSecret
      ? seal(tenantId, a, 'client_secret', clientSecret)
      : secretMethod
        ? before?.clientSecretSealed
        : undefined;
    if (secretMethod && !clientSecretSealed)
      throw problems.validation(`${rest.clientAuthMethod} needs clientSecret`, [
        { name: 'body.oidc.clientSecret', reason: 'required' },
      ]);
    let privateJwkSealed = before?.privateJwkSealed;
    if (!secretMethod && !privateJwkSealed) {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      privateJwkSealed = seal(tenantId, a, 'private_jwk', JSON.stringify(privateKey.export({ format: 'jwk' })));
    }
    return {
      ...rest,
      ...(clientSecretSealed ? { clientSecretSealed } : {}),
      ...(privateJwkSealed ? { privateJwkSealed } : {}),
    };
  }

  function samlSettings(input: SamlInput, before: UpstreamSamlSettings | undefined): Partial<UpstreamSamlSettings> {
    if (input.metadataXml && /<!DOCTYPE|<!ENTITY/i.test(input.metadataXml))
      throw problems.validation('the metadata document must not have a document type declaration', [
        { name: 'body.saml.metadataXml', reason: 'DTDs are refused' },
      ]);
    return {
      ...input,
      // The SP key pair is oidc-core's to make on first use (it signs with it); kept across updates.
      ...(before?.spPrivateKeySealed ? { spPrivateKeySealed: before.spPrivateKeySealed } : {}),
      ...(before?.spCertificate ? { spCertificate: before.spCertificate } : {}),
    };
  }

  const find = async (tenantId: number, a: string) => {
    const doc = await models.UpstreamProvider.findOne({ tenantId, alias: a }).lean<UpstreamProviderDoc>();
    if (!doc) throw problems.notFound('upstream provider not found');
    return doc;
  };

  return [
    defineRoute({
      method: 'post',
      path: BASE,
      operationId: 'createUpstreamProvider',
      summary: 'Add an upstream identity provider (OpenID Connect or SAML 2.0)',
      tag: TAG,
      scope: 'auth.tenants.update',
      params: tenantParams,
      body: createBody,
      responses: {
        201: {
          description: 'The provider',
          schema: upstreamProviderSchema,
          headers: { Location: 'URL of the provider' },
        },
      },
      errors: [409],
      handler: async ({ tenantId, body, req, audit }) => {
        await loadTenant(models, tenantId);
        const { oidc, saml, ...rest } = body;
        let created;
        try {
          created = await models.UpstreamProvider.create({
            ...rest,
            tenantId,
            ...(oidc ? { oidc: oidcSettings(tenantId, body.alias, oidc, undefined) } : {}),
            ...(saml ? { saml: samlSettings(saml, undefined) } : {}),
          });
        } catch (err) {
          if (isDuplicateKeyError(err)) throw problems.conflict('the tenant already has a provider with this alias');
          throw err;
        }
        audit({ upstreamProvider: body.alias, type: body.type });
        return {
          status: 201,
          body: view(created.toObject()),
          headers: { Location: `${req.baseUrl}${req.path}/${body.alias}` },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: BASE,
      operationId: 'listUpstreamProviders',
      summary: 'List the upstream identity providers (oldest first)',
      tag: TAG,
      scope: 'auth.tenants.list',
      params: tenantParams,
      query: pageQuery,
      responses: {
        200: { description: 'A page of providers', schema: page(upstreamProviderSchema, 'UpstreamProviderPage') },
      },
      handler: async ({ tenantId, query }) => ({
        status: 200,
        body: await pageOf(models.UpstreamProvider, { tenantId }, query, (d) => view(d as UpstreamProviderDoc)),
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/:alias`,
      operationId: 'getUpstreamProvider',
      summary: 'Get an upstream identity provider',
      tag: TAG,
      scope: 'auth.tenants.list',
      params,
      responses: { 200: { description: 'The provider', schema: upstreamProviderSchema } },
      handler: async ({ tenantId, params: p }) => ({ status: 200, body: view(await find(tenantId, p.alias)) }),
    }),
    defineRoute({
      method: 'patch',
      path: `${BASE}/:alias`,
      operationId: 'updateUpstreamProvider',
      summary: 'Update an upstream identity provider',
      description: 'Applies from the next sign-in. `enabled: false` stops sign-in through the provider at once.',
      tag: TAG,
      scope: 'auth.tenants.update',
      params,
      body: patchBody,
      responses: { 200: { description: 'The updated provider', schema: upstreamProviderSchema } },
      handler: async ({ tenantId, params: p, body, audit }) => {
        const existing = await find(tenantId, p.alias);
        if (body.oidc && existing.type !== 'oidc')
          throw problems.validation('a saml provider has no oidc settings', [
            { name: 'body.oidc', reason: 'not allowed' },
          ]);
        if (body.saml && existing.type !== 'saml')
          throw problems.validation('an oidc provider has no saml settings', [
            { name: 'body.saml', reason: 'not allowed' },
          ]);
        const { oidc, saml, ...rest } = body;
        const set: Record<string, unknown> = { ...rest };
        if (oidc) set.oidc = oidcSettings(tenantId, p.alias, oidc, existing.oidc);
        if (saml) set.saml = samlSettings(saml, existing.saml);
        const doc = await models.UpstreamProvider.findOneAndUpdate(
          { tenantId, alias: p.alias },
          { $set: set },
          { returnDocument: 'after' },
        ).lean<UpstreamProviderDoc>();
        if (!doc) throw problems.notFound('upstream provider not found');
        audit({ upstreamProvider: p.alias, fields: Object.keys(body) });
        return { status: 200, body: view(doc) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/:alias`,
      operationId: 'deleteUpstreamProvider',
      summary: 'Remove an upstream identity provider and every account link to it',
      description:
        'Accounts created through it stay (without a usable password unless one was set); their links to it go, and with them the group and role memberships its mappers granted. Sessions already signed in stay until they end.',
      tag: TAG,
      scope: 'auth.tenants.update',
      params,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ tenantId, params: p, audit }) => {
        await find(tenantId, p.alias);
        // The provider first: a sign-in racing this delete then finds no provider and links nothing more.
        await models.UpstreamProvider.deleteOne({ tenantId, alias: p.alias });
        const linksDeleted = await removeUpstreamLinks(models, { tenantId, provider: p.alias });
        audit({ upstreamProvider: p.alias, linksDeleted });
        return { status: 204 };
      },
    }),
  ];
}
