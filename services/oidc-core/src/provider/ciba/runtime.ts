import type Provider from 'oidc-provider';
import type { ForwardedCiba } from '@idp/delegation';
import type { BackchannelAuthenticationSettings, Models } from '@idp/db';
import type { TokenExchangeResponse } from '../grants/token-exchange';

/** The sidecar's CIBA call (nhe-delegation /internal/ciba-token): check, mint or record a denial. */
export type CibaForwarder = (request: ForwardedCiba) => Promise<TokenExchangeResponse>;

/** Core NATS subject of new requests (`idp.ciba.requested.<tenantId>`): notifiers (web push, a mobile app) listen. */
export const CIBA_REQUESTED_SUBJECT_PREFIX = 'idp.ciba.requested';
export const cibaRequestedSubject = (tenantId: number) => `${CIBA_REQUESTED_SUBJECT_PREFIX}.${tenantId}`;

/** What the authentication device is told (NATS, core publish): never the auth_req_id, only its handle. */
export interface CibaRequested {
  tenantId: number;
  accountId: string;
  handle: string;
  clientId: string;
  expiresAt: string;
}

export interface CibaRuntime {
  models: Models;
  tenantId: number;
  settings: BackchannelAuthenticationSettings;
  /** Absent: no sidecar (tests of the provider alone): every request is refused with temporarily_unavailable. */
  forward?: CibaForwarder | undefined;
  /** Told of each new request, fire-and-forget (triggerAuthenticationDevice must not wait). */
  notify?: ((event: CibaRequested) => void) | undefined;
}

/**
 * The provider's CIBA runtime, registered once the provider exists (registerCiba): the configuration's hooks are built
 * before the provider and its sidecar wiring, and find them here through ctx.oidc.provider.
 */
const runtimes = new WeakMap<Provider, CibaRuntime>();

export function setCibaRuntime(provider: Provider, runtime: CibaRuntime): void {
  runtimes.set(provider, runtime);
}

export function cibaRuntimeOf(provider: Provider): CibaRuntime | undefined {
  return runtimes.get(provider);
}
