/**
 * A user's sign-in sessions and remembered consents, as node-oidc-provider keeps them (Session and Grant payloads in
 * the provider's storage, `_id` `<tenantId>:<model>:<id>`, JSON text; provider/adapter.ts in oidc-core): an
 * administrator sees them, ends one session or all of them (the user is signed out at this provider: the next
 * authorization asks for the password again), and withdraws a consent (the next authorization asks again; the
 * refresh and opaque access tokens issued under it stop working, and delegation tokens the user's consent let an agent
 * client obtain are revoked through the kill switch).
 *
 * Every query names the tenant and checks the payload's accountId: a session id of another user or tenant is a 404.
 */
import { z } from 'zod';
import { accountPayloads, endAccountSessions, type AccountPayload } from '@idp/db';
import { problems } from '@idp/errors';
import { defineRoute, type RouteDef } from '../openapi/route';
import { isoDate } from '../openapi/schemas';
import { idOr404, type RouteDeps } from './deps';
import { userParams } from './users';

const TAG = 'Users';
const BASE = '/tenants/:tenantId/users/:userId';

export const userSessionSchema = z
  .object({
    id: z.string().describe("The session's id (not its cookie value)"),
    signedInAt: isoDate.optional().describe('When the user last authenticated in this session'),
    expiresAt: isoDate.optional(),
    acr: z.string().optional(),
    amr: z.array(z.string()).optional(),
    clients: z.array(z.string()).describe('The applications this session signed the user in to (client ids)'),
  })
  .meta({ id: 'UserSession' });

export const userGrantSchema = z
  .object({
    id: z.string().describe("The grant's id"),
    clientId: z.string(),
    scopes: z.array(z.string()).describe('OpenID scopes consented to'),
    resources: z
      .array(z.object({ resource: z.string(), scopes: z.array(z.string()) }))
      .describe('API scopes consented to, per resource'),
    createdAt: isoDate.optional(),
    expiresAt: isoDate.optional(),
  })
  .meta({ id: 'UserGrant' });

const seconds = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? new Date(v * 1000) : undefined);
const words = (v: unknown) => (typeof v === 'string' ? v.split(' ').filter(Boolean) : []);

function sessionView(s: AccountPayload) {
  const authorizations =
    s.payload.authorizations && typeof s.payload.authorizations === 'object'
      ? Object.keys(s.payload.authorizations)
      : [];
  const signedInAt = seconds(s.payload.loginTs);
  return {
    id: s.id,
    ...(signedInAt ? { signedInAt: signedInAt.toISOString() } : {}),
    ...(s.expiresAt ? { expiresAt: s.expiresAt.toISOString() } : {}),
    ...(typeof s.payload.acr === 'string' ? { acr: s.payload.acr } : {}),
    ...(Array.isArray(s.payload.amr) ? { amr: s.payload.amr.filter((a): a is string => typeof a === 'string') } : {}),
    clients: authorizations,
  };
}

function grantView(g: AccountPayload) {
  const openid =
    g.payload.openid && typeof g.payload.openid === 'object' ? (g.payload.openid as { scope?: unknown }) : {};
  const resources =
    g.payload.resources && typeof g.payload.resources === 'object'
      ? Object.entries(g.payload.resources as Record<string, unknown>)
      : [];
  const createdAt = seconds(g.payload.iat);
  return {
    id: g.id,
    clientId: typeof g.payload.clientId === 'string' ? g.payload.clientId : '',
    scopes: words(openid.scope),
    resources: resources.map(([resource, scope]) => ({ resource, scopes: words(scope) })),
    ...(createdAt ? { createdAt: createdAt.toISOString() } : {}),
    ...(g.expiresAt ? { expiresAt: g.expiresAt.toISOString() } : {}),
  };
}

export function userSessionRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;
  const user = async (tenantId: number, userId: string) => {
    const doc = await models.User.findOne({ tenantId, _id: idOr404(userId, 'user') }, { _id: 1 }).lean();
    if (!doc) throw problems.notFound('user not found');
  };
  const sessionParams = userParams.extend({ sessionId: z.string().min(1).max(128) }).strict();
  const grantParams = userParams.extend({ grantId: z.string().min(1).max(128) }).strict();

  /** Withdraws one grant: the consent, the tokens stored under it, and the delegation tokens it let a client obtain. */
  async function endGrant(tenantId: number, userId: string, grant: { docId: string; id: string; clientId: string }) {
    // The kill switch first: if it cannot be confirmed (503), nothing is deleted yet and a retry does both.
    const client = grant.clientId
      ? await models.Client.findOne({ tenantId, clientId: grant.clientId }, { numericId: 1 }).lean()
      : null;
    if (client && deps.revoke)
      await deps.revoke({ tenantId, subject: userId, clientNumericId: client.numericId, reason: 'user.grant.revoked' });
    await models.OidcPayload.deleteOne({ _id: grant.docId, tenantId });
    // node-oidc-provider's revokeByGrantId: refresh tokens, opaque access tokens, codes issued under the grant.
    await models.OidcPayload.deleteMany({ tenantId, grantId: grant.id });
  }

  return [
    defineRoute({
      method: 'get',
      path: `${BASE}/sessions`,
      operationId: 'listUserSessions',
      summary: "List a user's sign-in sessions",
      tag: TAG,
      scope: 'auth.users.list',
      params: userParams,
      responses: {
        200: { description: 'The live sessions', schema: z.object({ items: z.array(userSessionSchema) }) },
      },
      handler: async ({ tenantId, params }) => {
        await user(tenantId, params.userId);
        const sessions = await accountPayloads(models, tenantId, 'Session', params.userId);
        const items = sessions.map(sessionView).sort((a, b) => (b.signedInAt ?? '').localeCompare(a.signedInAt ?? ''));
        return { status: 200, body: { items } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/sessions/:sessionId`,
      operationId: 'endUserSession',
      summary: "End one of a user's sessions (signs the user out of it)",
      tag: TAG,
      scope: 'auth.users.update',
      params: sessionParams,
      responses: { 204: { description: 'Ended' } },
      handler: async ({ tenantId, params, audit }) => {
        await user(tenantId, params.userId);
        const found = (await accountPayloads(models, tenantId, 'Session', params.userId)).find(
          (s) => s.id === params.sessionId,
        );
        if (!found) throw problems.notFound('session not found');
        await models.OidcPayload.deleteOne({ _id: found.docId, tenantId });
        audit({ userId: params.userId, sessionEnded: params.sessionId });
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/sessions`,
      operationId: 'endAllUserSessions',
      summary: 'Sign a user out everywhere (ends every session)',
      description:
        'Ends every sign-in session of the user at this provider. Tokens already issued stay valid until they expire ' +
        'unless the grants are withdrawn as well (DELETE .../grants).',
      tag: TAG,
      scope: 'auth.users.update',
      params: userParams,
      responses: { 200: { description: 'How many sessions ended', schema: z.object({ ended: z.number().int() }) } },
      handler: async ({ tenantId, params, audit }) => {
        await user(tenantId, params.userId);
        const ended = await endAccountSessions(models, tenantId, params.userId);
        audit({ userId: params.userId, sessionsEnded: ended });
        return { status: 200, body: { ended } };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/grants`,
      operationId: 'listUserGrants',
      summary: "List a user's remembered consents (grants)",
      tag: TAG,
      scope: 'auth.users.list',
      params: userParams,
      responses: { 200: { description: 'The grants', schema: z.object({ items: z.array(userGrantSchema) }) } },
      handler: async ({ tenantId, params }) => {
        await user(tenantId, params.userId);
        const grants = await accountPayloads(models, tenantId, 'Grant', params.userId);
        return { status: 200, body: { items: grants.map(grantView) } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/grants/:grantId`,
      operationId: 'revokeUserGrant',
      summary: "Withdraw one of a user's consents",
      description:
        'The next authorization of that application asks the user again; refresh tokens and opaque access tokens issued ' +
        "under the grant stop working, and the delegation tokens of the user's agents through that application are revoked.",
      tag: TAG,
      scope: 'auth.users.update',
      params: grantParams,
      responses: { 204: { description: 'Withdrawn' } },
      errors: [503],
      handler: async ({ tenantId, params, audit, invalidate }) => {
        await user(tenantId, params.userId);
        const found = (await accountPayloads(models, tenantId, 'Grant', params.userId)).find(
          (g) => g.id === params.grantId,
        );
        if (!found) throw problems.notFound('grant not found');
        await endGrant(tenantId, params.userId, { ...found, clientId: grantView(found).clientId });
        audit({ userId: params.userId, grantRevoked: params.grantId });
        invalidate('grant', params.grantId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/grants`,
      operationId: 'revokeAllUserGrants',
      summary: 'Withdraw every consent of a user',
      tag: TAG,
      scope: 'auth.users.update',
      params: userParams,
      responses: {
        200: { description: 'How many grants were withdrawn', schema: z.object({ revoked: z.number().int() }) },
      },
      errors: [503],
      handler: async ({ tenantId, params, audit, invalidate }) => {
        await user(tenantId, params.userId);
        const grants = await accountPayloads(models, tenantId, 'Grant', params.userId);
        for (const g of grants) {
          await endGrant(tenantId, params.userId, { ...g, clientId: grantView(g).clientId });
          invalidate('grant', g.id);
        }
        audit({ userId: params.userId, grantsRevoked: grants.length });
        return { status: 200, body: { revoked: grants.length } };
      },
    }),
  ];
}
