/**
 * custom_claims, resolved when UserInfo is called (never in an ID token): the values of the user's
 * identity-provider profile mapping, replaced for that response by the return value of the client's
 * customizeUserInfoClaims script when the client has one. A failing script (throws, times out, runs out of memory,
 * returns a non-object) gives a UserInfo response without custom_claims, a log line and a metered error.
 */
import { Counter } from 'prom-client';
import { CustomClaimsScriptError, runCustomClaimsScript } from '../domain/custom-claims-sandbox';

/** Registered on the service's registry by app.ts. */
export const customClaimsScriptErrors = new Counter({
  name: 'idp_custom_claims_script_errors_total',
  help: 'customizeUserInfoClaims script runs that failed, by reason (custom_claims left out of the UserInfo response)',
  labelNames: ['reason'] as const,
  registers: [],
});

export interface LogLike {
  warn: (obj: object, msg: string) => void;
}

export interface CustomClaimsInput {
  tenantId: number;
  tenantName: string;
  clientId: string;
  sub: string;
  scopes: string[];
  /** The user's released claims (frozen copy goes to the script). */
  claims: Record<string, unknown>;
  /** Values of the identity-provider profile mapping. */
  mapped: Record<string, unknown> | undefined;
  script: string | undefined;
  log?: LogLike;
}

/** The custom_claims object, or undefined when there is none (or the script failed). */
export async function resolveCustomClaims(i: CustomClaimsInput): Promise<Record<string, unknown> | undefined> {
  if (!i.script) return i.mapped && typeof i.mapped === 'object' ? i.mapped : undefined;
  try {
    return await runCustomClaimsScript(i.script, {
      user: { sub: i.sub, claims: i.claims, custom_claims: i.mapped ?? {} },
      context: { tenantId: i.tenantId, tenantName: i.tenantName, clientId: i.clientId, scopes: i.scopes },
    });
  } catch (err) {
    const reason = err instanceof CustomClaimsScriptError ? err.reason : 'unavailable';
    customClaimsScriptErrors.inc({ reason });
    i.log?.warn(
      { event: 'custom_claims.script_error', tenantId: i.tenantId, client_id: i.clientId, reason, error: (err as Error).message },
      'customizeUserInfoClaims script failed; custom_claims left out',
    );
    return undefined;
  }
}
