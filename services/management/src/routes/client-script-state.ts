/**
 * Read-only state of a client's customizeUserInfoClaims script as oidc-core's sandbox sees it: its circuit breaker
 * (closed, open, half_open), the timeouts or memory failures in a row, when the breaker opened and when the script
 * will be tried again, and the last error. oidc-core records it in custom_claims_script_states (libs/db) when the
 * breaker changes state, and at most every few seconds on failures; with several replicas, the latest report of
 * any of them. A state recorded for an earlier version of the script does not apply to the current one.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ClientDoc, CustomClaimsScriptStateDoc } from '@idp/db';
import { problems } from '@idp/errors';
import { defineRoute, type RouteDef } from '../openapi/route';
import { isoDate, tenantParams } from '../openapi/schemas';
import type { RouteDeps } from './deps';

const scriptStateSchema = z
  .object({
    clientId: z.string(),
    hasScript: z
      .boolean()
      .describe('Whether the client has a customizeUserInfoClaims script (without one, the state is always closed)'),
    state: z
      .enum(['closed', 'open', 'half_open'])
      .describe(
        'closed: the script runs. open: it is skipped (UserInfo answers without custom_claims) until retryAt. half_open: the next call runs as a probe that closes or reopens the breaker',
      ),
    consecutiveFailures: z.number().int().describe('Timeouts and memory failures in a row'),
    openedAt: isoDate.optional().describe('When the breaker last opened (while not closed)'),
    retryAt: isoDate
      .optional()
      .describe('When the script is tried again (while open); in the past, the next call is the probe'),
    lastError: z
      .object({
        reason: z.string().describe('timeout, memory, threw, invalid_return, output_too_large, syntax, unavailable'),
        message: z.string(),
        at: isoDate,
      })
      .optional()
      .describe('The last timeout or memory failure of this version of the script'),
    updatedAt: isoDate.optional().describe('When oidc-core last recorded the state'),
  })
  .meta({ id: 'CustomClaimsScriptState' });

const params = tenantParams.extend({ clientId: z.string().max(64) }).strict();

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export function scriptStateView(
  clientId: string,
  script: string | undefined,
  doc: CustomClaimsScriptStateDoc | null,
): z.input<typeof scriptStateSchema> {
  if (!script || !doc || doc.scriptSha256 !== sha256(script))
    return { clientId, hasScript: Boolean(script), state: 'closed', consecutiveFailures: 0 };
  return {
    clientId,
    hasScript: true,
    state: doc.state,
    consecutiveFailures: doc.consecutiveFailures,
    ...(doc.state !== 'closed' && doc.openedAt ? { openedAt: doc.openedAt.toISOString() } : {}),
    ...(doc.state === 'open' && doc.retryAt ? { retryAt: doc.retryAt.toISOString() } : {}),
    ...(doc.lastError?.at
      ? {
          lastError: {
            reason: doc.lastError.reason,
            message: doc.lastError.message,
            at: doc.lastError.at.toISOString(),
          },
        }
      : {}),
    updatedAt: doc.updatedAt.toISOString(),
  };
}

export function clientScriptStateRoutes(deps: Pick<RouteDeps, 'models'>): RouteDef[] {
  const { models } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/tenants/:tenantId/clients/:clientId/custom-claims-script/state',
      operationId: 'getClientCustomClaimsScriptState',
      summary: "State of the client's customizeUserInfoClaims script in the sandbox",
      description:
        'After repeated timeouts or memory failures (5 in a row by default) oidc-core skips the script for a while ' +
        '(30 s at first, doubled at each failed retry, up to 10 minutes): UserInfo then answers without custom_claims. ' +
        'This reports that circuit breaker, the last error and when the breaker opened. Read-only: saving a new ' +
        'script starts it closed. With several oidc-core replicas, each keeps its own breaker; this is the latest ' +
        'state any of them recorded.',
      tag: 'Clients',
      scope: 'auth.clients.list',
      params,
      responses: { 200: { description: 'The script state', schema: scriptStateSchema } },
      handler: async ({ tenantId, params: p }) => {
        // A stored record may lack config altogether (written before it existed).
        const client = await models.Client.findOne(
          { tenantId, clientId: p.clientId },
          { clientId: 1, 'config.customizeUserInfoClaims': 1 },
        ).lean<Pick<ClientDoc, 'clientId'> & { config?: { customizeUserInfoClaims?: string } }>();
        if (!client) throw problems.notFound('client not found');
        const script = client.config?.customizeUserInfoClaims || undefined;
        const doc = script
          ? await models.CustomClaimsScriptState.findOne({
              tenantId,
              clientId: p.clientId,
            }).lean<CustomClaimsScriptStateDoc>()
          : null;
        return { status: 200, body: scriptStateView(p.clientId, script, doc) };
      },
    }),
  ];
}
