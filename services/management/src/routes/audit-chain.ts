/**
 * Verification of a tenant's token-audit hash chain (read only). Not under /token-audit, whose every non-GET
 * method is 405: this is a GET that computes, it changes nothing.
 */
import { z } from 'zod';
import { verifyAuditChain } from '@idp/db';
import { problems } from '@idp/errors';
import { defineRoute, type RouteDef } from '../openapi/route';
import { isoDate, tenantParams } from '../openapi/schemas';
import type { RouteDeps } from './deps';

const problemSchema = z
  .object({
    kind: z.enum(['missing', 'altered', 'broken-link', 'truncated']),
    fromSeq: z.number().int(),
    toSeq: z.number().int(),
    jti: z.string().optional(),
  })
  .meta({ id: 'AuditChainProblem' });

const verificationSchema = z
  .object({
    tenantId: z.number().int(),
    valid: z.boolean(),
    checked: z.number().int(),
    firstSeq: z.number().int().nullable(),
    lastSeq: z.number().int().nullable(),
    anchor: z
      .object({ seq: z.number().int(), hash: z.string(), prunedAt: isoDate })
      .nullable()
      .describe('Where retention pruned the chain up to'),
    headSeq: z.number().int().describe('Highest position ever written'),
    problems: z.array(problemSchema),
    problemsTruncated: z.boolean(),
  })
  .meta({ id: 'AuditChainVerification' });

export function auditChainRoutes(deps: Pick<RouteDeps, 'models'>): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/tenants/:tenantId/non-human-entities/token-audit-chain/verify',
      operationId: 'verifyTokenAuditChain',
      summary: "Verify the tenant's token-audit hash chain over a time range",
      description:
        'Walks the audit rows issued in [from, to] in chain order and reports deleted rows (missing), rows whose content no longer matches their hash (altered), rows whose link to the previous row is wrong (broken-link) and, without `to`, rows deleted from the newest end (truncated). Verification starts after the point retention pruned up to.',
      tag: 'Token audit',
      scope: 'auth.nhe.audit.list',
      params: tenantParams,
      query: z.object({ from: isoDate.optional(), to: isoDate.optional() }).strict(),
      responses: {
        200: {
          description: 'The verification result (valid is false when tampering is detected)',
          schema: verificationSchema,
        },
      },
      handler: async ({ tenantId, query }) => {
        if (query.from && query.to && Date.parse(query.from) > Date.parse(query.to)) {
          throw problems.validation('the time range is empty', [
            { name: 'query.from', reason: 'must not be after query.to' },
          ]);
        }
        const result = await verifyAuditChain(deps.models, tenantId, {
          ...(query.from ? { from: new Date(query.from) } : {}),
          ...(query.to ? { to: new Date(query.to) } : {}),
        });
        return { status: 200, body: result };
      },
    }),
  ];
}
