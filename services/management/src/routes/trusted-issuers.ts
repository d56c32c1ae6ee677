/**
 * Trusted external issuers of a tenant: another organisation's authorization server or identity provider whose signed
 * JWT assertions the tenant redeems at its token endpoint with the JWT bearer grant (RFC 7523 section 2.1), plain or
 * as Identity Assertion Authorization Grants (ID-JAG). Nothing an issuer says is trusted beyond what its record
 * allows: its keys, its algorithms, the audiences it may name, how its subjects become local users. Trusting an issuer
 * is a tenant-level decision: the tenant scopes (auth.tenants.list to read, auth.tenants.update to change).
 */
import { z } from 'zod';
import {
  ISSUER_SIGNALS_POLL_DEFAULT_SECONDS,
  ISSUER_SIGNALS_POLL_MAX_SECONDS,
  ISSUER_SIGNALS_POLL_MIN_SECONDS,
  ISSUER_SUBJECT_MAPPINGS,
  trustedIssuerSecretAad,
  type TrustedIssuerDoc,
  type TrustedIssuerSignals,
} from '@idp/db';
import { isDuplicateKeyError, problems } from '@idp/errors';
import { defineRoute, type RouteDef } from '../openapi/route';
import { isoDate, objectIdParam, page, pageQuery, tenantParams } from '../openapi/schemas';
import { isTenantUrl, TENANT_URL_RULE } from './outbound-urls';
import { nheIdentifier } from './nhe-registrations';
import { idOr404, loadTenant, pageOf, type RouteDeps } from './deps';

/**
 * Asymmetric JWS algorithms only (RFC 7518 section 3.1, RFC 8037): the issuer's public keys verify its assertions.
 * Never `none` (RFC 7523 section 3 item 9: the JWT MUST be digitally signed or have a MAC) and never HMAC, whose key
 * would be a secret shared with another organisation.
 */
export const TRUSTED_ISSUER_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;

const issuerValue = z
  .string()
  .min(1)
  .max(2048)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
  .describe('The `iss` of its assertions, exactly (RFC 7523 section 3 item 1); immutable');

/** https, or http to a loopback host (local development: whether it is reachable is the platform's policy). */
const jwksUrl = z
  .string()
  .max(2048)
  .refine((v) => isTenantUrl(v), TENANT_URL_RULE)
  .describe('URL of its JWK Set (fetched through the SSRF-safe outbound client, cached)');

/** A URN (RFC 8141 section 2) or an absolute http(s) URL without fragment. */
const audience = z
  .string()
  .min(1)
  .max(2048)
  .refine((v) => {
    if (/^urn:[A-Za-z0-9][A-Za-z0-9-]{0,30}[A-Za-z0-9]:[\x21-\x7e]+$/i.test(v)) return true;
    try {
      const u = new URL(v);
      return (u.protocol === 'https:' || u.protocol === 'http:') && !u.hash && !u.username && !u.password;
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL without fragment or a URN');

const audiences = z
  .array(audience)
  .max(10)
  .refine((a) => new Set(a).size === a.length, 'must not repeat a value')
  .describe(
    "`aud` values accepted besides this tenant's issuer and token endpoint (RFC 7523 section 3 item 3); URLs or URNs",
  );

const algorithms = z
  .array(z.enum(TRUSTED_ISSUER_ALGORITHMS))
  .min(1)
  .max(TRUSTED_ISSUER_ALGORITHMS.length)
  .refine((a) => new Set(a).size === a.length, 'must not repeat a value')
  .describe('JWS algorithms accepted on its assertions (asymmetric only)');

const subjectMapping = z
  .enum(ISSUER_SUBJECT_MAPPINGS)
  .describe(
    'How the assertion becomes a local user: linked_identity, the user linked to (upstreamProvider, sub) by upstream sign-in; user_id, the local user id itself; username_claim, the user whose username is the value of the claim subjectClaim',
  );

const subjectClaim = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/, 'a claim name: letters, digits and _ . : -')
  .describe('username_claim: the assertion claim holding the local username (the issuer must be authoritative for it)');

const jitProvisioning = z
  .boolean()
  .describe(
    'A subject that maps to nobody becomes a new user (linked_identity: linked to the upstream provider; username_claim: that username); user_id cannot create users',
  );

const upstreamProvider = z
  .string()
  .max(64)
  .describe('linked_identity: alias of the upstream provider whose account links name this issuer’s subjects');

const maxLifetimeSeconds = z
  .number()
  .int()
  .min(30)
  .max(3600)
  .describe('Assertions live at most this long (exp - iat, and exp - now); longer ones are refused');

const allowReuse = z
  .boolean()
  .describe('An assertion may be redeemed again until it expires; otherwise its jti is redeemable once');

const allowAct = z
  .boolean()
  .describe(
    'Its assertions may carry `act` (a delegation, RFC 8693 section 4.1); otherwise such an assertion is refused',
  );

const description = z.string().min(1).max(256);

/** At most this many agents per issuer. */
const MAX_ACTORS = 100;

/**
 * Its agents this tenant accepts (with allowAct): an assertion's `act.sub` (RFC 8693 section 4.1, the current actor,
 * in the issuer's words) mapped to one of this tenant's NHEs, whose delegation token it then gets.
 */
const actors = z
  .array(
    z
      .object({
        subject: z
          .string()
          .min(1)
          .max(1024)
          .describe('The assertion’s act.sub, exactly as the issuer writes it (e.g. nhe:orders-agent)'),
        nheIdentifier: nheIdentifier.describe('Identifier of one of this tenant’s NHEs'),
      })
      .strict(),
  )
  .max(MAX_ACTORS)
  .refine((a) => new Set(a.map((x) => x.subject)).size === a.length, 'must not repeat a subject')
  .describe(
    'Its agents accepted here (with allowAct): act.sub mapped to an NHE of this tenant; an act.sub not listed is refused',
  );

/**
 * Revocation across organisations: this tenant polls (RFC 8936) the issuer's OpenID Shared Signals transmitter, and
 * the issuer's revocations become this tenant's kill-switch entries for the tokens minted from its assertions.
 */
const signalsBody = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Poll the issuer’s transmitter (off: the receiver stops and deletes its stream at the issuer; the settings are kept)',
      ),
    clientId: z
      .string()
      .min(1)
      .max(256)
      .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
      .describe(
        'This tenant’s client at the issuer: client_credentials with the scope ssf.manage on its SSF audience (urn:idp:ssf)',
      ),
    clientSecret: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .describe('Write-only; stored sealed. Required the first time; left out on an update, the stored one is kept'),
    pollIntervalSeconds: z
      .number()
      .int()
      .min(ISSUER_SIGNALS_POLL_MIN_SECONDS)
      .max(ISSUER_SIGNALS_POLL_MAX_SECONDS)
      .default(ISSUER_SIGNALS_POLL_DEFAULT_SECONDS)
      .describe('Seconds between polls: the issuer’s part of the revocation bound'),
  })
  .strict()
  .describe(
    'Subscribe to the issuer’s Shared Signals (SSF 1.0, RFC 8936 poll): its revocations revoke the tokens this tenant minted from its assertions',
  );

const createBody = z
  .object({
    issuer: issuerValue,
    jwksUri: jwksUrl,
    algorithms: algorithms.default(['RS256', 'ES256']),
    audiences: audiences.default([]),
    subjectMapping: subjectMapping.default('linked_identity'),
    upstreamProvider: upstreamProvider.optional(),
    subjectClaim: subjectClaim.optional(),
    jitProvisioning: jitProvisioning.default(false),
    maxLifetimeSeconds: maxLifetimeSeconds.default(300),
    allowReuse: allowReuse.default(false),
    allowAct: allowAct.default(false),
    actors: actors.default([]),
    enabled: z.boolean().default(true),
    signals: signalsBody.optional(),
    description: description.optional(),
  })
  .strict();

/** The issuer value is immutable: it is what a redeemed assertion's `iss` is matched against, and what audits name. */
const patchBody = z
  .object({
    jwksUri: jwksUrl.optional(),
    algorithms: algorithms.optional(),
    audiences: audiences.optional(),
    subjectMapping: subjectMapping.optional(),
    upstreamProvider: upstreamProvider.nullable().optional().describe('null removes it'),
    subjectClaim: subjectClaim.nullable().optional().describe('null removes it'),
    jitProvisioning: jitProvisioning.optional(),
    maxLifetimeSeconds: maxLifetimeSeconds.optional(),
    allowReuse: allowReuse.optional(),
    allowAct: allowAct.optional(),
    actors: actors.optional().describe('Replaced whole'),
    enabled: z.boolean().optional().describe('A disabled issuer’s assertions are refused, from the next request on'),
    signals: signalsBody
      .nullable()
      .optional()
      .describe('Replaced whole (a clientSecret left out is kept); null ends the subscription'),
    description: description.nullable().optional().describe('null removes it'),
  })
  .strict();

export const trustedIssuerSchema = z
  .object({
    id: z.string(),
    issuer: z.string(),
    jwksUri: z.string(),
    algorithms: z.array(z.string()),
    audiences: z.array(z.string()),
    subjectMapping: z.enum(ISSUER_SUBJECT_MAPPINGS),
    upstreamProvider: z.string().optional(),
    subjectClaim: z.string().optional(),
    jitProvisioning: z.boolean(),
    maxLifetimeSeconds: z.number().int(),
    allowReuse: z.boolean(),
    allowAct: z.boolean(),
    actors: z.array(z.object({ subject: z.string(), nheIdentifier: z.string() })),
    enabled: z.boolean(),
    signals: z
      .object({
        enabled: z.boolean(),
        clientId: z.string(),
        clientSecretSet: z.boolean().describe('Whether a client secret is stored (it is never returned)'),
        pollIntervalSeconds: z.number().int(),
      })
      .optional()
      .describe('The subscription to the issuer’s Shared Signals transmitter, when there is one'),
    description: z.string().optional(),
    createdAt: isoDate,
    updatedAt: isoDate,
  })
  .meta({ id: 'TrustedIssuer' });

type Stored = TrustedIssuerDoc & { _id: unknown };

function view(doc: Stored) {
  return {
    id: String(doc._id),
    issuer: doc.issuer,
    jwksUri: doc.jwksUri,
    algorithms: doc.algorithms,
    audiences: doc.audiences,
    subjectMapping: doc.subjectMapping,
    ...(doc.upstreamProvider ? { upstreamProvider: doc.upstreamProvider } : {}),
    ...(doc.subjectClaim ? { subjectClaim: doc.subjectClaim } : {}),
    jitProvisioning: doc.jitProvisioning,
    maxLifetimeSeconds: doc.maxLifetimeSeconds,
    allowReuse: doc.allowReuse,
    allowAct: doc.allowAct,
    actors: doc.actors.map((a) => ({ subject: a.subject, nheIdentifier: a.nheIdentifier })),
    enabled: doc.enabled,
    ...(doc.signals
      ? {
          signals: {
            enabled: doc.signals.enabled,
            clientId: doc.signals.clientId,
            clientSecretSet: Boolean(doc.signals.clientSecretSealed),
            pollIntervalSeconds: doc.signals.pollIntervalSeconds,
          },
        }
      : {}),
    ...(doc.description ? { description: doc.description } : {}),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

const BASE = '/tenants/:tenantId/trusted-issuers';
const TAG = 'Trusted issuers';
const params = tenantParams.extend({ issuerId: objectIdParam }).strict();

export function trustedIssuerRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;
  const kek = deps.keyStore.kek;

  /**
   * The stored subscription: the secret sealed with the key-encryption key, bound to the tenant and the issuer; a
   * secret left out keeps the stored one. Shared Signals discovery starts from the issuer identifier (SSF 1.0
   * section 7.2.1), so it must be a URL this service may reach.
   */
  function storedSignals(
    tenantId: number,
    issuer: string,
    input: z.infer<typeof signalsBody>,
    before: TrustedIssuerSignals | undefined,
  ): TrustedIssuerSignals {
    const invalid: Array<{ name: string; reason: string }> = [];
    if (!isTenantUrl(issuer, { query: false }))
      invalid.push({ name: 'body.signals', reason: `Shared Signals discovery: the issuer ${TENANT_URL_RULE}` });
    const { clientSecret, ...rest } = input;
    // A secret kept across a change of client would be another client's.
    const kept = before && before.clientId === rest.clientId ? before.clientSecretSealed : undefined;
    const clientSecretSealed = clientSecret
      ? kek.encrypt(clientSecret, trustedIssuerSecretAad(tenantId, issuer))
      : kept;
    if (!clientSecretSealed) invalid.push({ name: 'body.signals.clientSecret', reason: 'required' });
    if (invalid.length) throw problems.validation('the Shared Signals subscription is not complete', invalid);
    return { ...rest, ...(clientSecretSealed ? { clientSecretSealed } : {}) };
  }

  const find = async (tenantId: number, id: string) => {
    const doc = await models.TrustedIssuer.findOne({ tenantId, _id: idOr404(id, 'trusted issuer') }).lean<Stored>();
    if (!doc) throw problems.notFound('trusted issuer not found');
    return doc;
  };

  /**
   * linked_identity resolves `sub` through the account links of one upstream provider of this tenant, so that
   * provider must exist; user_id names no provider. An IdP must not redeem the ID-JAGs it issued itself
   * (draft-ietf-oauth-identity-assertion-authz-grant): this tenant's own issuer is not an external one. A PATCH that
   * leaves the mapping and provider alone is not refused for a provider removed since (disabling must always work).
   */
  async function checkTrust(
    tenantId: number,
    t: {
      issuer: string;
      subjectMapping: TrustedIssuerDoc['subjectMapping'];
      upstreamProvider?: string | undefined;
      subjectClaim?: string | undefined;
      jitProvisioning?: boolean | undefined;
    },
    providerChanged = true,
  ) {
    const invalid: Array<{ name: string; reason: string }> = [];
    const own = `${(deps.publicBaseUrl ?? '').replace(/\/+$/, '')}/auth/${tenantId}`;
    if (deps.publicBaseUrl && t.issuer.replace(/\/+$/, '') === own)
      invalid.push({ name: 'body.issuer', reason: "is this tenant's own issuer" });
    if (t.subjectMapping === 'linked_identity') {
      if (!t.upstreamProvider)
        invalid.push({ name: 'body.upstreamProvider', reason: 'linked_identity needs an upstream provider alias' });
      else if (providerChanged) {
        const provider = await models.UpstreamProvider.findOne({ tenantId, alias: t.upstreamProvider }).lean();
        if (!provider)
          invalid.push({
            name: 'body.upstreamProvider',
            reason: 'the tenant has no upstream provider with this alias',
          });
        // Its links name subjects of the provider's issuer: only that same issuer's assertions may use them.
        else if (provider.oidc?.issuer !== t.issuer)
          invalid.push({
            name: 'body.upstreamProvider',
            reason: 'the upstream provider is not an OpenID provider with this same issuer',
          });
      }
    } else if (t.upstreamProvider) {
      invalid.push({ name: 'body.upstreamProvider', reason: `${t.subjectMapping} names no upstream provider` });
    }
    if (t.subjectMapping === 'username_claim' && !t.subjectClaim)
      invalid.push({ name: 'body.subjectClaim', reason: 'username_claim needs the claim that holds the username' });
    if (t.subjectMapping !== 'username_claim' && t.subjectClaim)
      invalid.push({ name: 'body.subjectClaim', reason: `${t.subjectMapping} reads no username claim` });
    // A local user id is this deployment's to hand out: an issuer naming one that does not exist names nobody.
    if (t.subjectMapping === 'user_id' && t.jitProvisioning)
      invalid.push({ name: 'body.jitProvisioning', reason: 'user_id cannot create users' });
    if (invalid.length) throw problems.validation('the trusted issuer configuration is not consistent', invalid);
  }

  /** Every mapped NHE must be one of this tenant's (a mapping to nobody would only ever refuse). */
  async function checkActors(tenantId: number, list: Array<{ nheIdentifier: string }> | undefined) {
    if (!list?.length) return;
    const wanted = [...new Set(list.map((a) => a.nheIdentifier))];
    const found = await models.Nhe.find({ tenantId, identifier: { $in: wanted } }, { identifier: 1 }).lean();
    const known = new Set(found.map((n) => n.identifier));
    const invalid = list.flatMap((a, i) =>
      known.has(a.nheIdentifier)
        ? []
        : [{ name: `body.actors.${i}.nheIdentifier`, reason: 'the tenant has no NHE with this identifier' }],
    );
    if (invalid.length) throw problems.validation('an agent is mapped to an NHE this tenant does not have', invalid);
  }

  return [
    defineRoute({
      method: 'post',
      path: BASE,
      operationId: 'createTrustedIssuer',
      summary: 'Trust an external issuer of JWT bearer assertions (RFC 7523, ID-JAG)',
      tag: TAG,
      scope: 'auth.tenants.update',
      params: tenantParams,
      body: createBody,
      responses: {
        201: { description: 'The issuer', schema: trustedIssuerSchema, headers: { Location: 'URL of the issuer' } },
      },
      errors: [409],
      handler: async ({ tenantId, body, req, audit, invalidate }) => {
        await loadTenant(models, tenantId);
        await checkTrust(tenantId, body);
        await checkActors(tenantId, body.actors);
        const { signals, ...fields } = body;
        let created;
        try {
          created = await models.TrustedIssuer.create({
            ...fields,
            ...(signals ? { signals: storedSignals(tenantId, body.issuer, signals, undefined) } : {}),
            tenantId,
          });
        } catch (err) {
          if (isDuplicateKeyError(err)) throw problems.conflict('this issuer is already trusted by the tenant');
          throw err;
        }
        const id = String(created._id);
        audit({ trustedIssuerId: id, issuer: body.issuer, subjectMapping: body.subjectMapping });
        // The token endpoint is the tenant's provider: it is rebuilt with the new trust.
        invalidate('tenant', String(tenantId));
        return {
          status: 201,
          body: view(created.toObject()),
          headers: { Location: `${req.baseUrl}${req.path}/${id}` },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: BASE,
      operationId: 'listTrustedIssuers',
      summary: 'List the trusted external issuers (oldest first)',
      tag: TAG,
      scope: 'auth.tenants.list',
      params: tenantParams,
      query: pageQuery,
      responses: {
        200: { description: 'A page of issuers', schema: page(trustedIssuerSchema, 'TrustedIssuerPage') },
      },
      handler: async ({ tenantId, query }) => ({
        status: 200,
        body: await pageOf(models.TrustedIssuer, { tenantId }, query, view),
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/:issuerId`,
      operationId: 'getTrustedIssuer',
      summary: 'Get a trusted external issuer',
      tag: TAG,
      scope: 'auth.tenants.list',
      params,
      responses: { 200: { description: 'The issuer', schema: trustedIssuerSchema } },
      handler: async ({ tenantId, params: p }) => ({ status: 200, body: view(await find(tenantId, p.issuerId)) }),
    }),
    defineRoute({
      method: 'patch',
      path: `${BASE}/:issuerId`,
      operationId: 'updateTrustedIssuer',
      summary: 'Update a trusted external issuer',
      description:
        'Applies from the next token request. Setting subjectMapping to user_id drops the upstream provider unless the body names one (refused).',
      tag: TAG,
      scope: 'auth.tenants.update',
      params,
      body: patchBody,
      responses: { 200: { description: 'The updated issuer', schema: trustedIssuerSchema } },
      handler: async ({ tenantId, params: p, body, audit, invalidate }) => {
        const existing = await find(tenantId, p.issuerId);
        const { description: desc, upstreamProvider: provider, subjectClaim: claim, signals, ...rest } = body;
        const mapping = body.subjectMapping ?? existing.subjectMapping;
        // Switching to a mapping that names no provider (or no claim) forgets the one the record had.
        const keptProvider = mapping === 'linked_identity' ? existing.upstreamProvider : undefined;
        const merged = provider === null ? undefined : (provider ?? keptProvider);
        const keptClaim = mapping === 'username_claim' ? existing.subjectClaim : undefined;
        const mergedClaim = claim === null ? undefined : (claim ?? keptClaim);
        await checkTrust(
          tenantId,
          {
            issuer: existing.issuer,
            subjectMapping: mapping,
            upstreamProvider: merged,
            subjectClaim: mergedClaim,
            jitProvisioning: body.jitProvisioning ?? existing.jitProvisioning,
          },
          provider !== undefined || body.subjectMapping !== undefined,
        );
        await checkActors(tenantId, body.actors);
        const set: Record<string, unknown> = { ...rest };
        const unset: Record<string, 1> = {};
        if (desc) set.description = desc;
        else if (desc === null) unset.description = 1;
        if (merged) set.upstreamProvider = merged;
        else if (existing.upstreamProvider) unset.upstreamProvider = 1;
        if (mergedClaim) set.subjectClaim = mergedClaim;
        else if (existing.subjectClaim) unset.subjectClaim = 1;
        if (signals) set.signals = storedSignals(tenantId, existing.issuer, signals, existing.signals);
        else if (signals === null) unset.signals = 1;
        const update: Record<string, unknown> = { $set: set };
        if (Object.keys(unset).length) update.$unset = unset;
        const doc = await models.TrustedIssuer.findOneAndUpdate({ tenantId, _id: existing._id }, update, {
          returnDocument: 'after',
        }).lean<Stored>();
        if (!doc) throw problems.notFound('trusted issuer not found');
        audit({ trustedIssuerId: p.issuerId, issuer: doc.issuer, fields: Object.keys(body) });
        invalidate('tenant', String(tenantId));
        return { status: 200, body: view(doc) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/:issuerId`,
      operationId: 'deleteTrustedIssuer',
      summary: 'Stop trusting an external issuer',
      description:
        'Its assertions are refused from the next token request. Tokens already issued for them stay valid until they expire.',
      tag: TAG,
      scope: 'auth.tenants.update',
      params,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ tenantId, params: p, audit, invalidate }) => {
        const existing = await find(tenantId, p.issuerId);
        await models.TrustedIssuer.deleteOne({ tenantId, _id: existing._id });
        audit({ trustedIssuerId: p.issuerId, issuer: existing.issuer });
        invalidate('tenant', String(tenantId));
        return { status: 204 };
      },
    }),
  ];
}
