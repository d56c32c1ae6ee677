import { z } from 'zod';

/**
 * The wire contract between oidc-core and the nhe-delegation sidecar: what oidc-core forwards after it has
 * authenticated the client and checked that the token-exchange grant is allowed for it.
 */
export const forwardedExchangeSchema = z
  .object({
    tenantId: z.number().int().nonnegative(),
    clientId: z.string().min(1).max(256),
    clientNumericId: z.number().int(),
    /** The RFC 8693 parameters as received (each at most once). */
    params: z.record(z.string(), z.string().optional()),
    /** The DPoP proof header, if any, with the method and URL it must be bound to. */
    dpop: z.object({ proof: z.string().max(8192), htm: z.string(), htu: z.string() }).optional(),
    /** The client's address, from the trusted proxy chain. */
    sourceIp: z.string().max(64),
  })
  .strict();

export type ForwardedExchange = z.infer<typeof forwardedExchangeSchema>;

/**
 * The wire contract of an agent client's token (an OAuth client that embodies a registered NHE): after
 * node-oidc-provider has redeemed an authorization code or a device code of a client that embodies an NHE
 * (agent-clients.ts), oidc-core hands the already-authenticated user, client, resource and scopes to the sidecar, which
 * decides, mints and audits exactly as for token exchange. The JWT bearer grant (RFC 7523) hands over the same way an
 * assertion of a trusted issuer whose `act` names one of this tenant's NHEs (cross-domain agents).
 */
export const forwardedAgentTokenSchema = z
  .object({
    tenantId: z.number().int().nonnegative(),
    clientId: z.string().min(1).max(2048),
    /** The client's numeric id (azp); 0 for a client identified by a metadata document, which has none. */
    clientNumericId: z.number().int().nonnegative(),
    /** The user who signed in and consented (the code's or device code's account). */
    userId: z.string().min(1).max(128),
    resource: z.string().min(1).max(2048),
    /** The resource scopes the code or device code carries (what was asked for and granted). */
    scopes: z.array(z.string().max(256)).max(256),
    /** What the user's grant holds for the resource (the consent page's scopes). */
    consentedScopes: z.array(z.string().max(256)).max(256),
    grantType: z.enum([
      'authorization_code',
      'urn:ietf:params:oauth:grant-type:device_code',
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
    ]),
    /** The DPoP key thumbprint the provider verified at its token endpoint, when the token is bound. */
    jkt: z.string().min(1).max(128).optional(),
    sourceIp: z.string().max(64),
    /**
     * The user's sign-in as the redeemed code or device code records it (what the user's own access token would state
     * as acr, amr and auth_time), for phishing-resistant delegation; absent for another organisation's assertion.
     */
    signIn: z
      .object({
        acr: z.string().min(1).max(256).optional(),
        amr: z.array(z.string().max(64)).max(16).optional(),
        authTime: z.number().int().nonnegative().optional(),
      })
      .strict()
      .optional(),
    /**
     * jwt-bearer only: the NHE the assertion's `act.sub` is mapped to by its trusted issuer's record (the client does
     * not pick its NHE by being linked to it; the client must still be one of that NHE's agent clients).
     */
    nheIdentifier: z.string().min(1).max(256).optional(),
    /**
     * jwt-bearer only: where the delegation came from (an assertion of the trusted issuer `peer`: its jti, its sub and
     * its act.sub), kept in the audit record.
     */
    crossDomain: z
      .object({
        peer: z.string().min(1).max(2048),
        assertionJti: z.string().min(1).max(256).optional(),
        subject: z.string().min(1).max(1024),
        actor: z.string().min(1).max(1024),
        /** Every actor of the assertion's act chain, outermost (actor) first. */
        actors: z.array(z.string().min(1).max(1024)).min(1).max(16).optional(),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine(
    (t) =>
      (t.grantType === 'urn:ietf:params:oauth:grant-type:jwt-bearer') ===
      (t.nheIdentifier !== undefined && t.crossDomain !== undefined),
    'nheIdentifier and crossDomain come with the jwt-bearer grant, and only with it',
  );

export type ForwardedAgentToken = z.infer<typeof forwardedAgentTokenSchema>;
