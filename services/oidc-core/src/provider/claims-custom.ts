/**
 * custom_claims, resolved when UserInfo is called (never in an ID token): the values of the user's
 * identity-provider profile mapping, replaced for that response by the return value of the client's
 * customizeUserInfoClaims script when the client has one. A failing script (throws, times out, runs out of memory,
 * returns a non-object) gives a UserInfo response without custom_claims, a log line and a metered error.
 *
 * Scripts run through a CustomClaimsRunner: the sandbox pool, scheduled fairly per tenant (custom-claims-sandbox.ts),
 * and a circuit breaker per tenant + client script (custom-claims-breaker.ts) that skips a script after repeated
 * timeouts or memory failures; its state is persisted for the management API (custom-claims-state.ts).
 */
import { Counter } from 'prom-client';
import {
  ScriptBreaker,
  DEFAULT_BREAKER_OPTIONS,
  type BreakerChange,
  type BreakerOptions,
  type BreakerSnapshot,
} from '../domain/custom-claims-breaker';
import {
  CustomClaimsSandbox,
  CustomClaimsScriptError,
  customClaimsSandbox,
  DEFAULT_SANDBOX_LIMITS,
  type SandboxLimits,
} from '../domain/custom-claims-sandbox';
import type { ScriptStateWriter } from './custom-claims-state';

/** Registered on the service's registry by app.ts. */
export const customClaimsScriptErrors = new Counter({
  name: 'idp_custom_claims_script_errors_total',
  help: 'customizeUserInfoClaims script runs that failed, by tenant and reason (custom_claims left out of the UserInfo response); busy: the tenant already had its maximum of scripts waiting',
  labelNames: ['tenant', 'reason'] as const,
  registers: [],
});

/** Registered on the service's registry by app.ts. */
export const customClaimsScriptSkips = new Counter({
  name: 'idp_custom_claims_script_skipped_total',
  help: "customizeUserInfoClaims script runs skipped because the script's circuit breaker is open (repeated timeouts or memory failures), by tenant",
  labelNames: ['tenant'] as const,
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

export interface CustomClaimsRunnerOptions {
  sandbox?: CustomClaimsSandbox;
  breaker?: Partial<BreakerOptions>;
  limits?: SandboxLimits;
  /** Persists breaker transitions and failures (bounded) for the management API. */
  state?: Pick<ScriptStateWriter, 'report'>;
  /** Breaker transitions (opened, closed) are logged here. */
  log?: LogLike & { info?: (obj: object, msg: string) => void };
  clock?: () => number;
}

/** The sandbox pool + one circuit breaker per tenant + client script; one per process. */
export class CustomClaimsRunner {
  readonly sandbox: CustomClaimsSandbox;
  readonly breaker: ScriptBreaker;
  private readonly limits: SandboxLimits;

  constructor(private readonly options: CustomClaimsRunnerOptions = {}) {
    this.sandbox = options.sandbox ?? customClaimsSandbox();
    this.limits = options.limits ?? DEFAULT_SANDBOX_LIMITS;
    this.breaker = new ScriptBreaker(
      { ...DEFAULT_BREAKER_OPTIONS, ...options.breaker },
      options.clock ?? Date.now,
      (key, change, snapshot, script) => this.onBreakerChange(key, change, snapshot, script),
    );
  }

  /** The custom_claims object, or undefined when there is none (or the script failed or was skipped). */
  async resolve(i: CustomClaimsInput): Promise<Record<string, unknown> | undefined> {
    if (!i.script) return i.mapped && typeof i.mapped === 'object' ? i.mapped : undefined;
    const script = i.script;
    const tenant = String(i.tenantId);
    const key = `${i.tenantId}:${i.clientId}`;
    const admission = this.breaker.admit(key, script);
    if (admission === 'skip') {
      customClaimsScriptSkips.inc({ tenant });
      return undefined;
    }
    // The breaker may open while this call waits for a worker: then it is skipped when a worker takes it.
    const skipped = new CustomClaimsScriptError(
      'busy',
      "skipped: the script's circuit breaker opened while the call waited",
    );
    try {
      const out = await this.sandbox.run(
        script,
        {
          user: { sub: i.sub, claims: i.claims, custom_claims: i.mapped ?? {} },
          context: { tenantId: i.tenantId, tenantName: i.tenantName, clientId: i.clientId, scopes: i.scopes },
        },
        this.limits,
        { owner: tenant, gate: () => (this.breaker.stillAdmitted(key, script, admission) ? undefined : skipped) },
      );
      this.breaker.record(key, script, admission, { ok: true });
      return out;
    } catch (err) {
      if (err === skipped) {
        customClaimsScriptSkips.inc({ tenant });
        return undefined;
      }
      const reason = err instanceof CustomClaimsScriptError ? err.reason : 'unavailable';
      const message = (err as Error).message;
      this.breaker.record(key, script, admission, { ok: false, reason, message });
      customClaimsScriptErrors.inc({ tenant, reason });
      // A refusal for a full tenant queue is counted, not logged per call (a flood would flood the log too).
      if (reason !== 'busy') {
        i.log?.warn(
          { event: 'custom_claims.script_error', tenantId: i.tenantId, client_id: i.clientId, reason, error: message },
          'customizeUserInfoClaims script failed; custom_claims left out',
        );
      }
      return undefined;
    }
  }

  /** Stops the pool (pending calls fail with `unavailable`). */
  close(): Promise<void> {
    return this.sandbox.close();
  }

  private onBreakerChange(key: string, change: BreakerChange, snapshot: BreakerSnapshot, script: string): void {
    const sep = key.indexOf(':');
    const tenantId = Number(key.slice(0, sep));
    const clientId = key.slice(sep + 1);
    const log = this.options.log;
    if (change === 'opened') {
      log?.warn(
        {
          event: 'custom_claims.script_breaker_open',
          tenantId,
          client_id: clientId,
          consecutiveFailures: snapshot.consecutiveFailures,
          retryAt: snapshot.retryAt && new Date(snapshot.retryAt).toISOString(),
          lastError: snapshot.lastError,
        },
        'customizeUserInfoClaims script skipped for a while after repeated timeouts or memory failures',
      );
    } else if (change === 'closed') {
      log?.info?.(
        { event: 'custom_claims.script_breaker_closed', tenantId, client_id: clientId },
        'customizeUserInfoClaims script runs again',
      );
    }
    this.options.state?.report({ tenantId, clientId, script, change, snapshot });
  }
}

let shared: CustomClaimsRunner | undefined;

/** The process-wide default runner (the shared sandbox pool, default breaker, nothing persisted), for callers not given one. */
export function defaultCustomClaimsRunner(): CustomClaimsRunner {
  shared ??= new CustomClaimsRunner();
  return shared;
}

/** The custom_claims object, or undefined when there is none (or the script failed or was skipped). */
export function resolveCustomClaims(
  i: CustomClaimsInput,
  runner: CustomClaimsRunner = defaultCustomClaimsRunner(),
): Promise<Record<string, unknown> | undefined> {
  return runner.resolve(i);
}
