import { z } from 'zod';

/**
 * The wire contract of a backchannel authentication request's delegation (OpenID CIBA Core 1.0, with RFC 9396
 * authorization details): oidc-core hands the authenticated client, the person the request names, the NHE it is for,
 * the resource and scopes to the nhe-delegation sidecar, which decides with the same function as token exchange.
 *
 * - `check`: before the person is asked (the backchannel authentication endpoint): the decision as if the person had
 *   approved every requested scope; a refusal ends the request there, and no one is notified.
 * - `mint`: after the person approved (the token endpoint, grant type urn:openid:params:grant-type:ciba): the decision
 *   with the approved scopes as the person's consent, then the token (with `authorization_details`) and its audit row
 *   (with the approval).
 * - `denied`: the person said no: recorded in the decision log (a refusal, gate `person-denied`), no token.
 */
export const CIBA_STAGES = ['check', 'mint', 'denied'] as const;
export type CibaStage = (typeof CIBA_STAGES)[number];

/** RFC 9396 section 2: an array of JSON objects, each with a string `type`. */
export const authorizationDetailsSchema = z
  .array(z.looseObject({ type: z.string().min(1).max(256) }))
  .min(1)
  .max(16);

export const forwardedCibaSchema = z
  .object({
    stage: z.enum(CIBA_STAGES),
    tenantId: z.number().int().nonnegative(),
    clientId: z.string().min(1).max(2048),
    /** The client's numeric id (azp). */
    clientNumericId: z.number().int().nonnegative(),
    /** The person the request names (login_hint or id_token_hint). */
    userId: z.string().min(1).max(128),
    /** The NHE the request names (actor_token of type nhe-id); absent: the NHE whose agentClients names the client. */
    nheIdentifier: z.string().min(1).max(256).optional(),
    resource: z.string().min(1).max(2048),
    /** check: the requested resource scopes; mint: the approved ones. */
    scopes: z.array(z.string().max(256)).max(256),
    authorizationDetails: authorizationDetailsSchema.optional(),
    /** mint only: the approval (digest of auth_req_id, when, how the person had signed in). */
    approval: z
      .object({
        requestId: z.string().min(1).max(128),
        approvedAt: z.iso.datetime(),
        bindingMessage: z.string().max(256).optional(),
        authTime: z.iso.datetime().optional(),
        amr: z.array(z.string().max(64)).max(16).optional(),
        acr: z.string().max(256).optional(),
      })
      .strict()
      .optional(),
    /** The DPoP key thumbprint the provider verified at its token endpoint (mint), when the token is bound. */
    jkt: z.string().min(1).max(128).optional(),
    sourceIp: z.string().max(64),
  })
  .strict()
  .refine(
    (c) => (c.stage === 'mint') === (c.approval !== undefined),
    'approval comes with the mint stage, and only with it',
  );

export type ForwardedCiba = z.infer<typeof forwardedCibaSchema>;
