/**
 * createSsfPollReceiver: an OpenID Shared Signals (SSF 1.0) receiver that polls (RFC 8936) the provider's
 * transmitter for revocations and keeps them in a bounded in-memory {@link DenyList}; it is the `revocations` hook
 * of createVerifier, so an agent disabled in the provider is refused by this API within the poll interval.
 *
 * - Discovery: `{origin}/.well-known/ssf-configuration{issuer path}` (SSF 1.0 section 7.2.1), then
 *   `{issuer}/.well-known/ssf-configuration`; the document's `issuer` must be the configured issuer exactly, its
 *   endpoints https (http only for an http issuer, in development).
 * - Authorization: a client-credentials access token for the transmitter (`resource=urn:idp:ssf`,
 *   `scope=ssf.manage`), fetched and cached by the receiver, or your own `getAccessToken`.
 * - Stream: a new poll stream per process, created at start and deleted at stop. The transmitter delivers to a new
 *   stream every revocation whose tokens can still be alive, so the list is complete after the first poll, also
 *   after a restart (a stream an earlier process acknowledged events on would not deliver them again). With
 *   `exclusive` (one API process per client at a time), streams a crashed process left behind are deleted first.
 * - Poll: `ack` of the SETs processed, `setErrs` for those that fail verification, `maxEvents`, `returnImmediately`
 *   (true, or false with `longPoll`); polls again at once while `moreAvailable`.
 * - Each SET is verified (RFC 8417 / SSF 1.0 section 4.1): `typ: secevent+jwt`, signed with a key of the
 *   transmitter's `jwks_uri` (the tenant's JWKS) by an allowed asymmetric algorithm, `iss` = the issuer, `aud` =
 *   this receiver (the stream's `aud`), `jti` = the key it was delivered under.
 * - Outage: the list is kept and enforced, polls are retried with exponential back-off. Fails open for revocations
 *   it has not learnt yet (unless `failClosedAfterMs`): see the README.
 */
import { createRemoteJWKSet, customFetch, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { assertAsymmetric, DEFAULT_ACCESS_TOKEN_ALGORITHMS } from './algorithms';
import { DenyList, type DenyListAddResult, type RevocationSelector } from './deny-list';
import { discoverMetadata } from './discovery';
import { CAEP_SESSION_REVOKED, DELIVERY_POLL, NHE_REVOCATION_EVENT, selectorFromSet, SetProblem } from './ssf-events';
import type { Access, RevocationSource } from './verifier';

/** The fetch the receiver uses (the global fetch fits). */
export type SsfFetch = (
  url: string,
  init: { method: string; headers: Headers; body?: string; redirect: 'manual'; signal: AbortSignal },
) => Promise<Response>;

export interface SsfClientCredentials {
  clientId: string;
  clientSecret: string;
  /** Default: the issuer's token_endpoint (discovered). */
  tokenEndpoint?: string;
  /** Default `urn:idp:ssf` (the provider's built-in SSF audience). */
  resource?: string;
  /** Default `ssf.manage`. */
  scope?: string;
}

export interface SsfPollReceiverOptions {
  /** The tenant's issuer (the transmitter's issuer, the SETs' `iss`). */
  issuer: string;
  /** client_secret_basic credentials of a client allowed `ssf.manage` on `urn:idp:ssf`. */
  clientCredentials?: SsfClientCredentials;
  /** Or your own access token source (called for every request; cache in it). */
  getAccessToken?: () => string | Promise<string>;
  /** Description of the stream the receiver creates (default `@idp/resource-server SSF poll receiver`). */
  description?: string;
  /**
   * This client is used by one process at a time: at start, delete the client's poll streams with this
   * description (left behind by a process that crashed) before creating a new one. Default false (several
   * replicas may share the client; each has its own stream). A stream that disappears while the receiver runs is
   * created again without deleting any other.
   */
  exclusive?: boolean;
  /** Default: the vendor nhe-revocation event and CAEP session-revoked. */
  eventsRequested?: readonly string[];
  /** Milliseconds between polls when nothing more is pending (default 5000): the revocation bound. */
  intervalMs?: number;
  /** Long polling (`returnImmediately: false`): the transmitter answers as soon as an event exists; polls back to back. */
  longPoll?: boolean;
  /** Events asked for per poll (default 100, at most 1000). */
  maxEvents?: number;
  /** Most live deny-list entries (default 50,000); ignored when `denyList` is given. */
  maxEntries?: number;
  /** A deny list to fill (shared between receivers); default: a new one. */
  denyList?: DenyList;
  /** Expected `aud` of the SETs; default: the stream's `aud` (the client id). */
  audience?: string;
  /** SET signature algorithms (default ES256, RS256; asymmetric only). */
  algorithms?: readonly string[];
  /** Seconds an entry learnt from a CAEP event alone is kept after its event_timestamp (default 960: 15 minutes + 60 s). */
  caepLifetimeSeconds?: number;
  /** Back-off after a failure: initial and longest delay in milliseconds (default 1000, 60000), with jitter. */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Timeout of one request in milliseconds (default 10000; long polls get 30000 more). */
  timeoutMs?: number;
  /** Refuse every delegation token once the last successful poll is older than this (default: never; fail open). */
  failClosedAfterMs?: number;
  fetch?: SsfFetch;
  /** Every failure (the loop goes on): network, HTTP, a SET refused. */
  onError?: (err: Error) => void;
  /** Every SET applied: its jti, the entry, and what the list did with it. */
  onEvent?: (event: { jti: string; selector?: RevocationSelector; result?: DenyListAddResult }) => void;
  /**
   * Called with the selector of every SET that passed verification and carries a revocation, before the SET is
   * acknowledged and before the deny list takes it; awaited. When it throws or rejects, the SET is neither applied nor
   * acknowledged: the transmitter delivers it again on a later poll (RFC 8936 section 2.4), so work the hook persists
   * elsewhere (another deny list, a database) is done at least once. A SET that fails verification never reaches it.
   */
  onRevocation?: (selector: RevocationSelector, set: { jti: string; payload: JWTPayload }) => void | Promise<void>;
  /** Clock in milliseconds (tests). */
  now?: () => number;
}

export interface SsfReceiverStatus {
  streamId: string | undefined;
  /** Epoch milliseconds of the last successful poll (undefined before the first). */
  lastSuccessAt: number | undefined;
  consecutiveFailures: number;
  lastError: string | undefined;
  entries: number;
  /** NumericDate until which delegation tokens are refused because the list was full (0: none). */
  overflowUntil: number;
  /** True when `failClosedAfterMs` is set and exceeded: delegation tokens are refused. */
  failingClosed: boolean;
}

export interface SsfPollReceiver extends RevocationSource {
  readonly denyList: DenyList;
  /** Discovers, sets the stream up and drains it once; the loop then polls every `intervalMs`. Rejects when that first sync fails (the loop keeps retrying; call stop() to give up). */
  start(): Promise<void>;
  /** Stops polling; deletes the stream the receiver created. */
  stop(): Promise<void>;
  /** One poll (setting the stream up first when needed): acknowledges what was processed, applies what arrives. */
  pollOnce(): Promise<{ received: number; moreAvailable: boolean }>;
  isRevoked(access: Access): boolean;
  status(): SsfReceiverStatus;
}

/** A refusal or failure of the transmitter's HTTP API. */
export class SsfReceiverError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SsfReceiverError';
  }
}

interface TransmitterMetadata {
  issuer: string;
  jwks_uri: string;
  configuration_endpoint: string;
  delivery_methods_supported?: string[];
}

interface StreamState {
  id: string;
  pollUrl: string;
  audience: string;
}

const MAX_ANSWER = 8 * 1024 * 1024;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The two places SSF transmitter metadata may live, in the order they are tried. */
export function ssfConfigurationUrls(issuer: string): [string, string] {
  const u = new URL(issuer);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  return [
    `${u.origin}/.well-known/ssf-configuration${path}`,
    `${issuer.replace(/\/$/, '')}/.well-known/ssf-configuration`,
  ];
}

export function createSsfPollReceiver(o: SsfPollReceiverOptions): SsfPollReceiver {
  if (typeof o.issuer !== 'string' || !/^https?:\/\//.test(o.issuer))
    throw new TypeError('createSsfPollReceiver: issuer must be an http(s) URL');
  if (!o.getAccessToken === !o.clientCredentials)
    throw new TypeError('createSsfPollReceiver: give exactly one of getAccessToken and clientCredentials');
  const algorithms = o.algorithms ?? DEFAULT_ACCESS_TOKEN_ALGORITHMS;
  assertAsymmetric(algorithms, 'createSsfPollReceiver algorithms');
  const intervalMs = o.intervalMs ?? 5000;
  const maxEvents = Math.min(o.maxEvents ?? 100, 1000);
  if (!(intervalMs >= 0) || !(maxEvents >= 1))
    throw new TypeError('createSsfPollReceiver: intervalMs must be >= 0 and maxEvents >= 1');
  const initialBackoff = o.backoff?.initialMs ?? 1000;
  const maxBackoff = o.backoff?.maxMs ?? 60_000;
  const timeoutMs = o.timeoutMs ?? 10_000;
  const caepLifetime = o.caepLifetimeSeconds ?? 960;
  const now = o.now ?? Date.now;
  const fetchImpl: SsfFetch = o.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const denyList =
    o.denyList ?? new DenyList({ ...(o.maxEntries !== undefined ? { maxEntries: o.maxEntries } : {}), now });
  const issuerHttps = o.issuer.startsWith('https:');
  const eventsRequested = o.eventsRequested ?? [NHE_REVOCATION_EVENT, CAEP_SESSION_REVOKED];

  /** Aborted by stop(): the in-flight poll (a long poll waits up to the transmitter's limit). */
  let cycleAbort = new AbortController();
  let metadata: TransmitterMetadata | undefined;
  let keys: ReturnType<typeof createRemoteJWKSet> | undefined;
  let stream: StreamState | undefined;
  let token: { value: string; expiresAt: number } | undefined;
  let tokenEndpoint = o.clientCredentials?.tokenEndpoint;
  const acks = new Set<string>();
  const setErrs = new Map<string, { err: string; description: string }>();
  let lastSuccessAt: number | undefined;
  let consecutiveFailures = 0;
  let lastError: string | undefined;
  const startedAt = now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: Promise<unknown> | undefined;
  let running = false;
  /** `exclusive` deletes left-behind streams once per start(): a stream re-created after a 404 deletes nothing. */
  let sweepDue = true;

  const report = (err: unknown) => {
    const e = err instanceof Error ? err : new Error(String(err));
    lastError = e.message;
    try {
      o.onError?.(e);
    } catch {
      // a throwing listener must not stop the loop
    }
  };

  const checkUrl = (value: unknown, what: string): string => {
    if (typeof value !== 'string') throw new SsfReceiverError(`the transmitter metadata has no ${what}`);
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new SsfReceiverError(`the transmitter's ${what} is not an absolute URL`);
    }
    if (url.protocol !== 'https:' && (issuerHttps || url.protocol !== 'http:'))
      throw new SsfReceiverError(`the transmitter's ${what} is not https`);
    return value;
  };

  async function request(
    method: string,
    url: string,
    init: { body?: unknown; auth?: boolean; extraTimeoutMs?: number; form?: URLSearchParams; basic?: string } = {},
  ): Promise<{ status: number; body: unknown }> {
    const aborted = cycleAbort.signal;
    const headers = new Headers({ accept: 'application/json' });
    let body: string | undefined;
    if (init.form) {
      headers.set('content-type', 'application/x-www-form-urlencoded');
      body = init.form.toString();
    } else if (init.body !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.body);
    }
    if (init.basic) headers.set('authorization', `Basic ${init.basic}`);
    if (init.auth) headers.set('authorization', `Bearer ${await accessToken()}`);
    // One controller per request, aborted by stop() or the timeout; the listener is removed afterwards (no
    // accumulation on the long-lived stop signal, as AbortSignal.any would leave).
    const controller = new AbortController();
    const abort = () => controller.abort(aborted.reason);
    if (aborted.aborted) abort();
    aborted.addEventListener('abort', abort, { once: true });
    const timeout = setTimeout(
      () => controller.abort(new Error(`timed out after ${timeoutMs + (init.extraTimeoutMs ?? 0)} ms`)),
      timeoutMs + (init.extraTimeoutMs ?? 0),
    );
    let res: Response;
    let text: string;
    try {
      try {
        res = await fetchImpl(url, {
          method,
          headers,
          ...(body !== undefined ? { body } : {}),
          redirect: 'manual',
          signal: controller.signal,
        });
        text = res.status === 204 ? '' : await res.text();
      } catch (err) {
        const reason =
          controller.signal.aborted && controller.signal.reason instanceof Error
            ? controller.signal.reason.message
            : err instanceof Error
              ? err.message
              : String(err);
        throw new SsfReceiverError(`${method} ${url} failed: ${reason}`, undefined, { cause: err });
      }
    } finally {
      clearTimeout(timeout);
      aborted.removeEventListener('abort', abort);
    }
    if (text.length > MAX_ANSWER)
      throw new SsfReceiverError(`${method} ${url} answered more than ${MAX_ANSWER} characters`, res.status);
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    if (res.status === 401 && init.auth) token = undefined; // an expired or revoked token: the next request gets a new one
    return { status: res.status, body: parsed };
  }

  const failure = (what: string, r: { status: number; body: unknown }) => {
    const detail = isObject(r.body)
      ? [r.body.error, r.body.error_description ?? r.body.description].filter((x) => typeof x === 'string').join(': ')
      : '';
    return new SsfReceiverError(`${what} answered ${r.status}${detail ? ` (${detail})` : ''}`, r.status);
  };

  async function accessToken(): Promise<string> {
    if (o.getAccessToken) return o.getAccessToken();
    if (token && now() < token.expiresAt) return token.value;
    const cc = o.clientCredentials!;
    if (!tokenEndpoint) {
      const m = await discoverMetadata(o.issuer, { fetch: (url, init) => fetchImpl(url, init), timeoutMs });
      tokenEndpoint = checkUrl(m.token_endpoint, 'token_endpoint');
    }
    const basic = Buffer.from(`${encodeURIComponent(cc.clientId)}:${encodeURIComponent(cc.clientSecret)}`).toString(
      'base64',
    );
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      resource: cc.resource ?? 'urn:idp:ssf',
      scope: cc.scope ?? 'ssf.manage',
    });
    const r = await request('POST', tokenEndpoint, { form, basic });
    if (r.status !== 200 || !isObject(r.body) || typeof r.body.access_token !== 'string')
      throw failure('the token endpoint', r);
    const lifetime = typeof r.body.expires_in === 'number' ? r.body.expires_in : 300;
    // Renewed a little before it expires (at most 30 s, at most half its lifetime).
    token = {
      value: r.body.access_token,
      expiresAt: now() + Math.max(lifetime - Math.min(30, lifetime / 2), 1) * 1000,
    };
    return token.value;
  }

  async function discover(): Promise<TransmitterMetadata> {
    const problems: string[] = [];
    for (const url of ssfConfigurationUrls(o.issuer)) {
      let r: { status: number; body: unknown };
      try {
        r = await request('GET', url);
      } catch (err) {
        problems.push((err as Error).message);
        continue;
      }
      if (r.status !== 200 || !isObject(r.body)) {
        problems.push(`${url} answered ${r.status}`);
        continue;
      }
      const doc = r.body;
      if (doc.issuer !== o.issuer) {
        problems.push(`${url} names issuer ${JSON.stringify(doc.issuer)}`);
        continue;
      }
      const methods = doc.delivery_methods_supported;
      if (Array.isArray(methods) && !methods.includes(DELIVERY_POLL))
        throw new SsfReceiverError('the transmitter does not offer poll delivery (RFC 8936)');
      return {
        issuer: o.issuer,
        jwks_uri: checkUrl(doc.jwks_uri, 'jwks_uri'),
        configuration_endpoint: checkUrl(doc.configuration_endpoint, 'configuration_endpoint'),
      };
    }
    throw new SsfReceiverError(`the SSF configuration of ${o.issuer} could not be discovered: ${problems.join('; ')}`);
  }

  /** The stream as the transmitter answered it, checked: a poll stream of this issuer, polled on the transmitter's origin. */
  function streamFrom(body: unknown): StreamState {
    if (!isObject(body) || typeof body.stream_id !== 'string' || !body.stream_id)
      throw new SsfReceiverError('the transmitter answered a stream without stream_id');
    const delivery = body.delivery;
    if (!isObject(delivery) || delivery.method !== DELIVERY_POLL)
      throw new SsfReceiverError(`stream ${body.stream_id} is not a poll stream`);
    const pollUrl = checkUrl(delivery.endpoint_url, 'poll endpoint_url');
    // The access token goes to the poll URL: only to the transmitter's own origin.
    if (new URL(pollUrl).origin !== new URL(metadata!.configuration_endpoint).origin)
      throw new SsfReceiverError(`the poll endpoint_url of stream ${body.stream_id} is on another origin`);
    if (body.iss !== undefined && body.iss !== o.issuer)
      throw new SsfReceiverError(`stream ${body.stream_id} names issuer ${JSON.stringify(body.iss)}`);
    const aud =
      o.audience ??
      (typeof body.aud === 'string'
        ? body.aud
        : Array.isArray(body.aud) && typeof body.aud[0] === 'string'
          ? body.aud[0]
          : undefined);
    if (!aud) throw new SsfReceiverError(`stream ${body.stream_id} names no aud; pass the audience option`);
    return { id: body.stream_id, pollUrl, audience: aud };
  }

  const description = o.description ?? '@idp/resource-server SSF poll receiver';

  const streamUrl = (id: string) => {
    const config = metadata!.configuration_endpoint;
    return `${config}${config.includes('?') ? '&' : '?'}stream_id=${encodeURIComponent(id)}`;
  };

  async function setUp(): Promise<StreamState> {
    metadata ??= await discover();
    keys ??= createRemoteJWKSet(new URL(metadata.jwks_uri), {
      timeoutDuration: timeoutMs,
      ...(o.fetch ? { [customFetch]: o.fetch } : {}),
    });
    const config = metadata.configuration_endpoint;
    // Only when the process starts: a stream deleted behind a running receiver's back (a 404) was most likely
    // deleted by another process's sweep; sweeping again would delete that process's new stream, and the two would
    // take turns deleting each other's.
    if (o.exclusive && sweepDue) {
      const r = await request('GET', config, { auth: true });
      if (r.status !== 200 || !Array.isArray(r.body)) throw failure(`GET ${config}`, r);
      for (const old of r.body) {
        if (!isObject(old) || old.description !== description || typeof old.stream_id !== 'string') continue;
        if (!isObject(old.delivery) || old.delivery.method !== DELIVERY_POLL) continue;
        const d = await request('DELETE', streamUrl(old.stream_id), { auth: true });
        if (d.status !== 204 && d.status !== 404) throw failure(`DELETE ${config} (stream ${old.stream_id})`, d);
      }
      sweepDue = false;
    }
    const r = await request('POST', config, {
      auth: true,
      body: { delivery: { method: DELIVERY_POLL }, events_requested: eventsRequested, description },
    });
    if (r.status === 409)
      throw new SsfReceiverError(
        `${failure(`POST ${config}`, r).message}: delete the streams left behind (or set exclusive when one process uses this client)`,
        409,
      );
    if (r.status !== 201 && r.status !== 200) throw failure(`POST ${config}`, r);
    acks.clear();
    setErrs.clear();
    return streamFrom(r.body);
  }

  /** RFC 8935 section 2.3 error codes for a SET that fails verification. */
  function setErrorOf(err: unknown): { err: string; description: string } | undefined {
    if (err instanceof SetProblem) return { err: 'invalid_request', description: err.message };
    if (err instanceof joseErrors.JWTClaimValidationFailed) {
      if (err.claim === 'iss') return { err: 'invalid_issuer', description: err.message };
      if (err.claim === 'aud') return { err: 'invalid_audience', description: err.message };
      return { err: 'invalid_request', description: err.message };
    }
    if (err instanceof joseErrors.JWSSignatureVerificationFailed || err instanceof joseErrors.JOSEAlgNotAllowed)
      return { err: 'invalid_key', description: err.message };
    if (
      err instanceof joseErrors.JWTInvalid ||
      err instanceof joseErrors.JWSInvalid ||
      err instanceof joseErrors.JOSENotSupported ||
      err instanceof joseErrors.JWTExpired
    ) {
      return { err: 'invalid_request', description: err.message };
    }
    // An unknown kid (a key rotation the JWKS cache has not seen yet), a JWKS that cannot be fetched: not the SET's
    // fault. It is left unacknowledged, so the transmitter delivers it again.
    return undefined;
  }

  async function apply(jti: string, set: unknown, s: StreamState): Promise<void> {
    let payload: JWTPayload;
    try {
      if (typeof set !== 'string') throw new SetProblem('the SET is not a string');
      ({ payload } = await jwtVerify(set, keys!, {
        typ: 'secevent+jwt',
        issuer: o.issuer,
        audience: s.audience,
        algorithms: [...algorithms],
      }));
      if (payload.jti !== jti) throw new SetProblem('the SET was delivered under another jti');
      const selector = selectorFromSet(payload, caepLifetime);
      if (selector && o.onRevocation) {
        try {
          await o.onRevocation(selector, { jti, payload });
        } catch (err) {
          // Not the SET's fault: left unacknowledged, delivered again.
          throw new SsfReceiverError(
            `onRevocation failed: ${err instanceof Error ? err.message : String(err)}`,
            undefined,
            { cause: err },
          );
        }
      }
      const result = selector ? denyList.add(selector) : undefined;
      if (result === 'overflow')
        report(
          new SsfReceiverError(
            `the deny list is full (${denyList.maxEntries} entries): delegation tokens are refused until ${new Date(denyList.overflowUntil * 1000).toISOString()}`,
          ),
        );
      acks.add(jti);
      o.onEvent?.({ jti, ...(selector ? { selector } : {}), ...(result ? { result } : {}) });
    } catch (err) {
      const problem = setErrorOf(err);
      if (problem) setErrs.set(jti, problem);
      report(
        new SsfReceiverError(
          `SET ${jti} ${problem ? `refused (${problem.err})` : 'left for redelivery'}: ${(err as Error).message}`,
          undefined,
          { cause: err },
        ),
      );
    }
  }

  async function pollOnce(wait = false): Promise<{ received: number; moreAvailable: boolean }> {
    stream ??= await setUp();
    const s = stream;
    const ack = [...acks];
    const errs = new Map(setErrs);
    const body: Record<string, unknown> = { maxEvents, returnImmediately: !wait };
    if (ack.length) body.ack = ack;
    if (errs.size) body.setErrs = Object.fromEntries(errs);
    const r = await request('POST', s.pollUrl, { auth: true, body, ...(wait ? { extraTimeoutMs: 30_000 } : {}) });
    if (r.status === 404) stream = undefined; // deleted by someone: a new stream (with every revocation in force) on the next attempt
    if (r.status !== 200 || !isObject(r.body) || !isObject(r.body.sets)) throw failure(`POST ${s.pollUrl}`, r);
    // The transmitter answered: the failure streak ends here, before the SETs are applied (applying awaits the
    // onRevocation hook, and a revocation must never be visible while the status still reports the outage).
    lastSuccessAt = now();
    consecutiveFailures = 0;
    lastError = undefined;
    for (const jti of ack) acks.delete(jti);
    for (const jti of errs.keys()) setErrs.delete(jti);
    const sets = Object.entries(r.body.sets);
    for (const [jti, set] of sets) await apply(jti, set, s);
    denyList.sweep();
    return { received: sets.length, moreAvailable: r.body.moreAvailable === true };
  }

  /** Polls until nothing more is pending (acknowledging the last batch too). */
  async function drain(): Promise<void> {
    for (let i = 0; i < 1000; i++) {
      const { moreAvailable } = await pollOnce();
      if (!moreAvailable) break;
    }
    // What the last answer carried is acknowledged at once, not one interval later.
    if (acks.size || setErrs.size) await ackOnly();
  }

  async function ackOnly(): Promise<void> {
    const s = stream!;
    const ack = [...acks];
    const errs = new Map(setErrs);
    const r = await request('POST', s.pollUrl, {
      auth: true,
      body: {
        maxEvents: 0,
        returnImmediately: true,
        ...(ack.length ? { ack } : {}),
        ...(errs.size ? { setErrs: Object.fromEntries(errs) } : {}),
      },
    });
    if (r.status !== 200) throw failure(`POST ${s.pollUrl}`, r);
    for (const jti of ack) acks.delete(jti);
    for (const jti of errs.keys()) setErrs.delete(jti);
  }

  const backoffDelay = () => {
    const base = Math.min(maxBackoff, initialBackoff * 2 ** Math.min(consecutiveFailures - 1, 30));
    return Math.round(base / 2 + (Math.random() * base) / 2);
  };

  function schedule(delay: number): void {
    if (!running) return;
    timer = setTimeout(() => {
      timer = undefined;
      inFlight = cycle();
    }, delay);
    // Runtimes whose timers are not node's may have no unref.
    (timer as { unref?: () => unknown }).unref?.();
  }

  async function cycle(): Promise<void> {
    try {
      if (o.longPoll) {
        const { moreAvailable } = await pollOnce(true);
        if (moreAvailable) await drain();
        else if (acks.size || setErrs.size) await ackOnly();
        schedule(0);
      } else {
        await drain();
        schedule(intervalMs);
      }
    } catch (err) {
      if (!running) return;
      consecutiveFailures++;
      report(err);
      schedule(backoffDelay());
    }
  }

  return {
    denyList,
    async start() {
      if (running) throw new Error('the receiver is already started');
      running = true;
      sweepDue = true;
      try {
        await drain();
        schedule(o.longPoll ? 0 : intervalMs);
      } catch (err) {
        consecutiveFailures++;
        report(err);
        schedule(backoffDelay());
        throw err;
      }
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      cycleAbort.abort();
      await inFlight?.catch(() => undefined);
      cycleAbort = new AbortController();
      const s = stream;
      stream = undefined;
      if (s && metadata) {
        // Best effort: a stream left behind (a crash) counts against the client's streams until deleted.
        try {
          const r = await request('DELETE', streamUrl(s.id), { auth: true });
          if (r.status !== 204 && r.status !== 404) throw failure(`DELETE ${metadata.configuration_endpoint}`, r);
        } catch (err) {
          report(err);
        }
      }
    },
    pollOnce,
    isRevoked(access: Access): boolean {
      if (
        o.failClosedAfterMs !== undefined &&
        access.delegation &&
        now() - (lastSuccessAt ?? startedAt) > o.failClosedAfterMs
      )
        return true;
      return denyList.isRevoked(access);
    },
    status() {
      return {
        streamId: stream?.id,
        lastSuccessAt,
        consecutiveFailures,
        lastError,
        entries: denyList.size,
        overflowUntil: denyList.overflowUntil,
        failingClosed: o.failClosedAfterMs !== undefined && now() - (lastSuccessAt ?? startedAt) > o.failClosedAfterMs,
      };
    },
  };
}
