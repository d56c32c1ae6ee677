/**
 * The line an API logs for each request it serves with a token: the spec's "logs agent activity under the user's
 * identity". The user is always `sub` (delegation, not impersonation); the agent, when there is one, is named beside
 * it. A plain object: log it with your own logger.
 */
import type { Agent } from './delegation';
import type { Access } from './verifier';

export interface AuditLine {
  /** The human (`sub`). */
  userId: string;
  /** True for an NHE delegation token. */
  delegated: boolean;
  /** The NHE identifier (act.sub without `nhe:`), for a delegation token. */
  nheIdentifier: string | undefined;
  /** The agent (id, type, operator, model), for a delegation token. */
  agent: Agent | undefined;
  /** `client_id`. */
  clientId: string;
  scopes: string[];
  /** Token id. */
  jti: string | undefined;
  /** Issued at / expires, seconds since epoch. */
  iat: number | undefined;
  exp: number | undefined;
  /** Bearer or DPoP. */
  scheme: Access['scheme'];
}

export function auditLine(access: Access): AuditLine {
  const d = access.delegation;
  return {
    userId: access.userId,
    delegated: d !== undefined,
    nheIdentifier: d?.nheIdentifier,
    agent: d ? { ...d.agent } : undefined,
    clientId: access.clientId,
    scopes: [...access.scopes],
    jti: access.claims.jti,
    iat: access.claims.iat,
    exp: access.claims.exp,
    scheme: access.scheme,
  };
}
