/** Helpers of the HA e2e tests: token-exchange load through the round-robin router, audit rows, the stream leader. */
import { decodeJwt } from 'jose';
import { AUDIT_STREAM, connectNats } from '@idp/events';
import { createLogger } from '@idp/logger';
import { basicAuth, browserlessLogin } from '../../src/clients/browserless-login';
import type { HaHarness } from '../../src/ha/ha-harness';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function userToken(h: HaHarness): Promise<string> {
  const tokens = await browserlessLogin({
    baseUrl: h.topology.baseUrl,
    tenantId: h.tenant.tenantId,
    clientId: h.tenant.client.clientId,
    clientSecret: h.tenant.client.clientSecret,
    redirectUri: h.tenant.client.redirectUri,
    username: h.tenant.user.username,
    password: h.tenant.user.password,
    resource: h.tenant.resource,
  });
  return tokens.access_token;
}

export type ExchangeResult = { jti: string } | { status: number; error?: string };

/** One token exchange through the router (one oidc replica and its sidecar): the token's jti, or the status and error. */
export async function exchange(
  h: HaHarness,
  subjectToken: string,
  extraHeaders: Record<string, string> = {},
): Promise<ExchangeResult> {
  try {
    const res = await fetch(`${h.topology.baseUrl}/auth/${h.tenant.tenantId}/oidc/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
        ...extraHeaders,
      },
      body: new URLSearchParams({
        grant_type: TOKEN_EXCHANGE,
        subject_token: subjectToken,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        actor_token: h.tenant.nhe.identifier,
        actor_token_type: 'urn:vendor:token-type:nhe-id',
        resource: h.tenant.resource,
        scope: 'orders:read',
      }),
      signal: AbortSignal.timeout(15_000),
    });
    const body = (await res.json().catch(() => ({}))) as { access_token?: string; error?: string };
    if (res.status !== 200 || !body.access_token) return { status: res.status, error: body.error };
    return { jti: String(decodeJwt(body.access_token).jti) };
  } catch (err) {
    // fetch's TypeError says only "fetch failed": keep its cause (e.g. UND_ERR_SOCKET, other side closed) in the count.
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return {
      status: 0,
      error: cause ? `${(err as Error).name} (${cause.code ?? cause.message ?? 'no cause'})` : (err as Error).name,
    };
  }
}

export interface LoadResult {
  issued: string[];
  /** Refusals by `status error` (e.g. `503 temporarily_unavailable`). */
  refused: Map<string, number>;
  elapsedMs: number;
  perSecond: number;
}

/** `concurrency` clients exchanging tokens back to back until keepGoing() is false; `issued` fills as they go. */
export async function loadWhile(
  h: HaHarness,
  subjectToken: string,
  keepGoing: () => boolean,
  concurrency: number,
  issued: string[] = [],
): Promise<LoadResult> {
  const refused = new Map<string, number>();
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (keepGoing()) {
        const r = await exchange(h, subjectToken);
        if ('jti' in r) issued.push(r.jti);
        else {
          const key = `${r.status} ${r.error ?? ''}`.trim();
          refused.set(key, (refused.get(key) ?? 0) + 1);
          await sleep(50);
        }
      }
    }),
  );
  const elapsedMs = Date.now() - started;
  return { issued, refused, elapsedMs, perSecond: Math.round((issued.length / elapsedMs) * 1000) };
}

/** Refusals other than the documented 503 temporarily_unavailable. */
export function undocumentedRefusals(r: LoadResult): Array<[string, number]> {
  return [...r.refused].filter(([k]) => k !== '503 temporarily_unavailable');
}

/** The tenant's audit rows once at least `n` exist (or the time is up): their jtis. */
export async function waitForRows(h: HaHarness, n: number, timeoutMs = 60_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await h.db.models.TokenAudit.find({ tenantId: h.tenant.tenantId }, { jti: 1 }).lean();
    if (rows.length >= n || Date.now() > deadline) return rows.map((r) => r.jti);
    await sleep(300);
  }
}

/**
 * Every token a client received has exactly one audit row and no row is duplicated. Rows of tokens no client
 * received (the event was stored but the ack was lost in the election, so the sidecar answered 503 and handed out
 * nothing) are allowed and counted: no token exists without its row, which is the promise.
 */
export async function checkRows(
  h: HaHarness,
  issued: string[],
): Promise<{ rows: number; undelivered: number; missing: string[]; duplicates: number }> {
  const jtis = await waitForRows(h, issued.length);
  // Let a writer finish any batch still in flight before the final count.
  await sleep(1500);
  const final = (await h.db.models.TokenAudit.find({ tenantId: h.tenant.tenantId }, { jti: 1 }).lean()).map(
    (r) => r.jti,
  );
  const set = new Set(final);
  const issuedSet = new Set(issued);
  return {
    rows: final.length,
    undelivered: [...set].filter((j) => !issuedSet.has(j)).length,
    missing: issued.filter((j) => !set.has(j)),
    duplicates: final.length - set.size + (jtis.length - new Set(jtis).size),
  };
}

/** The nats-server (server_name) that leads the IDP_AUDIT stream now, and its replicas' state. */
export async function streamLeader(
  h: HaHarness,
  servers = h.nats.url,
): Promise<{ leader: string; replicas: Array<{ name: string; current: boolean }> }> {
  const nats = await connectNats(servers, createLogger({ service: 'e2e', level: 'silent' }), 'e2e-ha');
  try {
    const jsm = await nats.js.jetstreamManager();
    const info = await jsm.streams.info(AUDIT_STREAM);
    return {
      leader: info.cluster?.leader ?? '',
      replicas: (info.cluster?.replicas ?? []).map((r) => ({ name: r.name, current: r.current })),
    };
  } finally {
    await nats.close();
  }
}

/** Waits until the stream has a leader other than `not` (the replicas may still be catching up). */
export async function waitForNewLeader(
  h: HaHarness,
  not: string,
  timeoutMs = 30_000,
  servers = h.nats.url,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const leader = (await streamLeader(h, servers).catch(() => ({ leader: '' }))).leader;
    if (leader && leader !== not) return leader;
    if (Date.now() > deadline) throw new Error(`IDP_AUDIT has no leader other than ${not} within ${timeoutMs} ms`);
    await sleep(200);
  }
}

/** Waits until the stream has a leader and both other replicas are current (or the time is up). */
export async function waitForStreamHealthy(
  h: HaHarness,
  timeoutMs = 30_000,
): Promise<{ leader: string; replicas: Array<{ name: string; current: boolean }> }> {
  const deadline = Date.now() + timeoutMs;
  let last: { leader: string; replicas: Array<{ name: string; current: boolean }> } = { leader: '', replicas: [] };
  for (;;) {
    last = await streamLeader(h).catch(() => last);
    if (last.leader && last.replicas.length === 2 && last.replicas.every((r) => r.current)) return last;
    if (Date.now() > deadline) throw new Error(`IDP_AUDIT not healthy within ${timeoutMs} ms: ${JSON.stringify(last)}`);
    await sleep(500);
  }
}

export function describeLoad(label: string, r: LoadResult): string {
  return `${label}: ${r.issued.length} tokens in ${(r.elapsedMs / 1000).toFixed(1)} s (${r.perSecond}/s), refused ${JSON.stringify(Object.fromEntries(r.refused))}`;
}
