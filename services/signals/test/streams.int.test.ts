/**
 * The transmitter per tenant: discovery, stream management (create/read/update/replace/delete, status,
 * verification), poll with ack (RFC 8936), the SETs a kill-switch change produces (subject, selector, signature),
 * isolation between receivers and tenants, and the push URL rules (SSRF).
 */
import request from 'supertest';
import { decodeProtectedHeader } from 'jose';
import type { SeededTenant } from '@idp/testing';
import { SSF_AUDIENCE } from '@idp/tokens';
import {
  CAEP_SESSION_REVOKED,
  DELIVERY_POLL,
  DELIVERY_PUSH,
  NHE_REVOCATION_EVENT,
  SSF_VERIFICATION_EVENT,
} from '../src/domain/event-types';
import { eventually, PUBLIC_BASE_URL, startHarness, verifySet, type Harness } from './harness';

const A = 9301;
const B = 9302;
const issuer = (t: number) => `${PUBLIC_BASE_URL}/auth/${t}`;

let h: Harness;
let tenantA: SeededTenant;
let rx1: string;
let rx2: string;
let rxB: string;

beforeAll(async () => {
  h = await startHarness();
  tenantA = await h.seedTenant(A);
  await h.seedTenant(B);
  [rx1, rx2, rxB] = await Promise.all([
    h.token(A, 'receiver-one'),
    h.token(A, 'receiver-two'),
    h.token(B, 'receiver-b'),
  ]);
}, 60_000);

// Unset when beforeAll failed before assigning it: still close what it opened.
afterAll(async () => {
  await (h as typeof h | undefined)?.close();
});

const api = () => request(h.base());
const createPollStream = async (token: string, tenant = A, body: Record<string, unknown> = {}) => {
  const res = await api()
    .post(`/auth/${tenant}/ssf/streams`)
    .auth(token, { type: 'bearer' })
    .send({ delivery: { method: DELIVERY_POLL }, ...body });
  expect(res.status).toBe(201);
  return res.body as { stream_id: string; delivery: { endpoint_url: string } };
};
const poll = async (token: string, streamId: string, body: Record<string, unknown> = {}, tenant = A) =>
  api()
    .post(`/auth/${tenant}/ssf/poll/${streamId}`)
    .auth(token, { type: 'bearer' })
    .send({ returnImmediately: true, ...body });
const pollUntil = (token: string, streamId: string, count: number) =>
  eventually(async () => {
    const res = await poll(token, streamId);
    expect(res.status).toBe(200);
    return Object.keys(res.body.sets).length >= count
      ? (res.body as { sets: Record<string, string>; moreAvailable: boolean })
      : undefined;
  });
/** A Security Event Token's claims (RFC 8417), as far as these tests read them. */
interface SetClaims {
  iss: string;
  txn: string;
  sub_id: Record<string, unknown>;
  events: Record<string, Record<string, unknown>>;
}
const claimsOf = (set: string) => JSON.parse(Buffer.from(set.split('.')[1]!, 'base64url').toString()) as SetClaims;

describe('discovery', () => {
  it('serves SSF 1.0 transmitter metadata at the well-known path inserted before the issuer path, the suffixed form and the /_api alias', async () => {
    const res = await api().get(`/.well-known/ssf-configuration/auth/${A}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      spec_version: '1_0',
      issuer: issuer(A),
      jwks_uri: `${issuer(A)}/jwks`,
      delivery_methods_supported: ['urn:ietf:rfc:8935', 'urn:ietf:rfc:8936'],
      configuration_endpoint: `${issuer(A)}/ssf/streams`,
      status_endpoint: `${issuer(A)}/ssf/status`,
      verification_endpoint: `${issuer(A)}/ssf/verify`,
      authorization_schemes: [{ spec_urn: 'urn:ietf:rfc:6749' }],
      default_subjects: 'ALL',
      events_supported: [CAEP_SESSION_REVOKED, NHE_REVOCATION_EVENT],
    });
    expect((await api().get(`/auth/${A}/.well-known/ssf-configuration`)).body).toEqual(res.body);
    const alias = await api().get(`/_api/.well-known/ssf-configuration/auth/${A}`);
    expect(alias.body.issuer).toBe(issuer(A));
    expect(alias.body.configuration_endpoint).toBe(`${PUBLIC_BASE_URL}/_api/auth/${A}/ssf/streams`);
  });

  it('answers 404 for a tenant that does not exist', async () => {
    const res = await api().get('/.well-known/ssf-configuration/auth/99999');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
    expect((await api().get('/auth/abc/.well-known/ssf-configuration')).status).toBe(404);
  });
});

describe('authorization of stream management', () => {
  it('asks for a token (RFC 6750 challenge, no error code) when there is none', async () => {
    const res = await api().get(`/auth/${A}/ssf/streams`);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="ssf"/);
    expect(res.body).toEqual({});
  });

  it('refuses a token for another audience, without ssf.manage, from another tenant, or delegated', async () => {
    const other = await h.token(A, 'receiver-one', { aud: 'urn:idp:management' });
    const noScope = await h.token(A, 'receiver-one', { scope: 'openid' });
    const delegated = await h.token(A, 'receiver-one', { claims: { 'org.vendor.nhe.delegation': true } });
    expect((await api().get(`/auth/${A}/ssf/streams`).auth(other, { type: 'bearer' })).status).toBe(401);
    const scope = await api().get(`/auth/${A}/ssf/streams`).auth(noScope, { type: 'bearer' });
    expect(scope.status).toBe(403);
    expect(scope.headers['www-authenticate']).toMatch(/error="insufficient_scope".*scope="ssf.manage"/);
    // Tenant B's receiver on tenant A's transmitter: another issuer, another key.
    const crossTenant = await api().get(`/auth/${A}/ssf/streams`).auth(rxB, { type: 'bearer' });
    expect(crossTenant.status).toBe(401);
    expect(crossTenant.body.error).toBe('invalid_token');
    // A token naming tenant A's issuer but signed with tenant B's key.
    const forged = await h.token(A, 'receiver-one', { signWithTenant: B });
    expect((await api().get(`/auth/${A}/ssf/streams`).auth(forged, { type: 'bearer' })).status).toBe(401);
    expect((await api().get(`/auth/${A}/ssf/streams`).auth(delegated, { type: 'bearer' })).status).toBe(401);
    expect(SSF_AUDIENCE).toBe('urn:idp:ssf');
  });
});

describe('stream management', () => {
  it('creates, reads, updates, replaces and deletes a stream; events_delivered is the supported part of events_requested', async () => {
    const created = await api()
      .post(`/auth/${A}/ssf/streams`)
      .auth(rx1, { type: 'bearer' })
      .send({
        delivery: { method: DELIVERY_POLL },
        events_requested: [CAEP_SESSION_REVOKED, 'https://example.com/unknown'],
        description: 'orders api',
      });
    expect(created.status).toBe(201);
    const id = created.body.stream_id as string;
    expect(created.body).toEqual({
      stream_id: id,
      iss: issuer(A),
      aud: 'receiver-one',
      events_supported: [CAEP_SESSION_REVOKED, NHE_REVOCATION_EVENT],
      events_requested: [CAEP_SESSION_REVOKED, 'https://example.com/unknown'],
      events_delivered: [CAEP_SESSION_REVOKED],
      delivery: { method: DELIVERY_POLL, endpoint_url: `${issuer(A)}/ssf/poll/${id}` },
      min_verification_interval: 15,
      // SSF 1.0 section 8.1.1: a poll stream no request of its receiver touches for this long is deleted.
      inactivity_timeout: 900,
      description: 'orders api',
    });
    const read = await api().get(`/auth/${A}/ssf/streams`).query({ stream_id: id }).auth(rx1, { type: 'bearer' });
    expect(read.body).toEqual(created.body);

    const patched = await api()
      .patch(`/auth/${A}/ssf/streams`)
      .auth(rx1, { type: 'bearer' })
      .send({ stream_id: id, events_requested: [NHE_REVOCATION_EVENT] });
    expect(patched.status).toBe(200);
    expect(patched.body.events_delivered).toEqual([NHE_REVOCATION_EVENT]);
    expect(patched.body.description).toBe('orders api');

    // PUT of the configuration read back (transmitter-supplied fields included) replaces the receiver's fields.
    const replaced = await api()
      .put(`/auth/${A}/ssf/streams`)
      .auth(rx1, { type: 'bearer' })
      .send({ ...created.body, events_requested: undefined, description: undefined });
    expect(replaced.status).toBe(200);
    expect(replaced.body.events_delivered).toEqual([CAEP_SESSION_REVOKED, NHE_REVOCATION_EVENT]);
    expect(replaced.body.description).toBeUndefined();

    const bad = await api()
      .patch(`/auth/${A}/ssf/streams`)
      .auth(rx1, { type: 'bearer' })
      .send({ stream_id: id, delivery: { method: 'urn:example:carrier-pigeon' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_request');

    expect(
      (await api().delete(`/auth/${A}/ssf/streams`).query({ stream_id: id }).auth(rx1, { type: 'bearer' })).status,
    ).toBe(204);
    expect(
      (await api().get(`/auth/${A}/ssf/streams`).query({ stream_id: id }).auth(rx1, { type: 'bearer' })).status,
    ).toBe(404);
  });

  it('reads and changes the status; a verification request produces a signed verification event with the state', async () => {
    const { stream_id } = await createPollStream(rx1);
    const status = await api().get(`/auth/${A}/ssf/status`).query({ stream_id }).auth(rx1, { type: 'bearer' });
    expect(status.body).toEqual({ stream_id, status: 'enabled' });
    const paused = await api()
      .post(`/auth/${A}/ssf/status`)
      .auth(rx1, { type: 'bearer' })
      .send({ stream_id, status: 'paused', reason: 'maintenance' });
    expect(paused.body).toEqual({ stream_id, status: 'paused', reason: 'maintenance' });
    expect(
      (await api().post(`/auth/${A}/ssf/verify`).auth(rx1, { type: 'bearer' }).send({ stream_id, state: 'abc-123' }))
        .status,
    ).toBe(204);
    // Paused: held, not delivered.
    expect((await poll(rx1, stream_id)).body).toEqual({ sets: {}, moreAvailable: false });
    await api().post(`/auth/${A}/ssf/status`).auth(rx1, { type: 'bearer' }).send({ stream_id, status: 'enabled' });
    const { sets } = await pollUntil(rx1, stream_id, 1);
    const [jti, set] = Object.entries(sets)[0]!;
    expect(decodeProtectedHeader(set)).toMatchObject({ alg: 'ES256', typ: 'secevent+jwt' });
    const { payload, header } = await verifySet(set, await h.jwks(A), { issuer: issuer(A), audience: 'receiver-one' });
    expect((await h.jwks(A)).keys.map((k) => k.kid)).toContain(header.kid);
    expect(payload).toMatchObject({
      jti,
      iss: issuer(A),
      aud: 'receiver-one',
      sub_id: { format: 'opaque', id: stream_id },
      events: { [SSF_VERIFICATION_EVENT]: { state: 'abc-123' } },
    });
    expect(payload.sub).toBeUndefined();
    expect(payload.exp).toBeUndefined();
    // min_verification_interval
    const again = await api().post(`/auth/${A}/ssf/verify`).auth(rx1, { type: 'bearer' }).send({ stream_id });
    expect(again.status).toBe(429);
    expect(again.headers['retry-after']).toBe('15');
  });
});

describe('kill switch to SETs, poll and ack', () => {
  it('an NHE disabled in management becomes a CAEP session-revoked and a vendor event with the deny-list selector; acknowledged events never come back', async () => {
    const { stream_id } = await createPollStream(rx2);
    const entry = await h.revoke({ tenantId: A, nheIdentifier: tenantA.nhe.identifier, reason: 'nhe.disabled' });
    const { sets, moreAvailable } = await pollUntil(rx2, stream_id, 2);
    expect(moreAvailable).toBe(false);
    const jwks = await h.jwks(A);
    const verified = await Promise.all(
      Object.values(sets).map((s) => verifySet(s, jwks, { issuer: issuer(A), audience: 'receiver-two' })),
    );
    const byType = Object.fromEntries(verified.map((v) => [Object.keys(v.payload.events as object)[0], v.payload]));
    const subject = {
      format: 'complex',
      tenant: { format: 'opaque', id: String(A) },
      nhe: { format: 'iss_sub', iss: issuer(A), sub: `nhe:${tenantA.nhe.identifier}` },
    };
    const revokedAt = Math.floor(Date.parse(entry.revokedAt) / 1000);
    expect(byType[CAEP_SESSION_REVOKED]).toMatchObject({
      txn: entry.id,
      sub_id: subject,
      events: {
        [CAEP_SESSION_REVOKED]: {
          event_timestamp: revokedAt,
          initiating_entity: 'admin',
          reason_admin: { en: expect.stringMatching(/disabled/) },
        },
      },
    });
    expect(byType[NHE_REVOCATION_EVENT]).toMatchObject({ txn: entry.id, sub_id: subject });
    expect((byType[NHE_REVOCATION_EVENT]!.events as Record<string, unknown>)[NHE_REVOCATION_EVENT]).toEqual({
      id: entry.id,
      reason: 'nhe.disabled',
      nhe: tenantA.nhe.identifier,
      issuedBefore: revokedAt,
      until: Math.ceil(Date.parse(entry.expiresAt) / 1000),
    });

    // Not acknowledged: returned again. Acknowledged: never again, even when the entry is written again.
    expect(Object.keys((await poll(rx2, stream_id)).body.sets).sort()).toEqual(Object.keys(sets).sort());
    const acked = await poll(rx2, stream_id, { ack: Object.keys(sets) });
    expect(acked.body).toEqual({ sets: {}, moreAvailable: false });
    h.publisher.nc.publish(`idp.nhe.revoked.${A}`, JSON.stringify(entry));
    await h.publisher.nc.flush();
    await new Promise((r) => setTimeout(r, 500));
    expect((await poll(rx2, stream_id)).body.sets).toEqual({});
  });

  it('user, client and token selectors name the user, application and token members of the subject', async () => {
    const { stream_id } = await createPollStream(rx2, A, { events_requested: [NHE_REVOCATION_EVENT] });
    await h.revoke({ tenantId: A, subject: tenantA.user.id, reason: 'user.disabled' });
    await h.revoke({ tenantId: A, clientNumericId: tenantA.client.numericId, reason: 'client.delegation.disabled' });
    await h.revoke({ tenantId: A, jti: 'token-123', reason: 'token.revoked' });
    await h.revoke({ tenantId: A, reason: 'tenant.nhe.disabled' });
    const { sets } = await pollUntil(rx2, stream_id, 4);
    const payloads = Object.values(sets).map(claimsOf);
    const byReason = Object.fromEntries(payloads.map((p) => [p.events[NHE_REVOCATION_EVENT].reason as string, p]));
    expect(byReason['user.disabled']!.sub_id.user).toEqual({ format: 'iss_sub', iss: issuer(A), sub: tenantA.user.id });
    expect(byReason['user.disabled']!.events[NHE_REVOCATION_EVENT].sub).toBe(tenantA.user.id);
    expect(byReason['client.delegation.disabled']!.sub_id.application).toEqual({
      format: 'opaque',
      id: String(tenantA.client.numericId),
    });
    expect(byReason['client.delegation.disabled']!.events[NHE_REVOCATION_EVENT].azp).toBe(tenantA.client.numericId);
    expect(byReason['token.revoked']!.sub_id.token).toEqual({ format: 'jwt_id', iss: issuer(A), jti: 'token-123' });
    expect(byReason['token.revoked']!.events[NHE_REVOCATION_EVENT]).toMatchObject({ jti: 'token-123' });
    expect(byReason['token.revoked']!.events[NHE_REVOCATION_EVENT].issuedBefore).toBeUndefined();
    expect(byReason['tenant.nhe.disabled']!.sub_id).toEqual({
      format: 'complex',
      tenant: { format: 'opaque', id: String(A) },
    });
    // Only the requested type is delivered.
    expect(payloads.every((p) => Object.keys(p.events).join() === NHE_REVOCATION_EVENT)).toBe(true);
  });

  it('maxEvents bounds a poll and says moreAvailable; setErrs counts as answered; a long poll waits for the next event', async () => {
    const { stream_id } = await createPollStream(rx1, A, { events_requested: [CAEP_SESSION_REVOKED] });
    // A new stream starts with the revocations still in force (earlier tests'): acknowledge them first.
    const backlog = Object.keys((await poll(rx1, stream_id, { maxEvents: 100 })).body.sets);
    expect(backlog.length).toBeGreaterThan(0);
    await poll(rx1, stream_id, { ack: backlog, maxEvents: 0 });
    await h.revoke({ tenantId: A, nheIdentifier: 'x-1', reason: 'nhe.deleted' });
    await h.revoke({ tenantId: A, nheIdentifier: 'x-2', reason: 'nhe.deleted' });
    await pollUntil(rx1, stream_id, 2);
    const first = await poll(rx1, stream_id, { maxEvents: 1 });
    expect(Object.keys(first.body.sets)).toHaveLength(1);
    expect(first.body.moreAvailable).toBe(true);
    const [jti1] = Object.keys(first.body.sets);
    const second = await poll(rx1, stream_id, { setErrs: { [jti1!]: { err: 'invalid_key', description: 'test' } } });
    expect(Object.keys(second.body.sets)).toHaveLength(1);
    expect(Object.keys(second.body.sets)).not.toContain(jti1);
    expect((await poll(rx1, stream_id, { ack: Object.keys(second.body.sets), maxEvents: 0 })).body).toEqual({
      sets: {},
      moreAvailable: false,
    });
    // Long poll (returnImmediately false): answers as soon as the next event is written.
    const started = Date.now();
    const waiting = poll(rx1, stream_id, { returnImmediately: false });
    await new Promise((r) => setTimeout(r, 300));
    await h.revoke({ tenantId: A, nheIdentifier: 'x-3', reason: 'nhe.deleted' });
    const late = await waiting;
    expect(Object.keys(late.body.sets)).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(2000);
    expect((await poll(rx1, stream_id, { bad: true })).status).toBe(400);
  });

  it('a disabled stream holds nothing; enabled again it gets the revocations still in force', async () => {
    const { stream_id } = await createPollStream(rx1, A, { events_requested: [NHE_REVOCATION_EVENT] });
    await pollUntil(rx1, stream_id, 1); // the entries still in force from earlier tests
    const before = Object.keys((await poll(rx1, stream_id, { maxEvents: 100 })).body.sets);
    await poll(rx1, stream_id, { ack: before, maxEvents: 0 });
    await api().post(`/auth/${A}/ssf/status`).auth(rx1, { type: 'bearer' }).send({ stream_id, status: 'disabled' });
    const entry = await h.revoke({ tenantId: A, nheIdentifier: 'while-disabled', reason: 'nhe.disabled' });
    await new Promise((r) => setTimeout(r, 500));
    expect(await h.db.connection.collection('ssf_events').countDocuments({ streamId: stream_id, txn: entry.id })).toBe(
      0,
    );
    await api().post(`/auth/${A}/ssf/status`).auth(rx1, { type: 'bearer' }).send({ stream_id, status: 'enabled' });
    const { sets } = await pollUntil(rx1, stream_id, 1);
    expect(Object.values(sets).map((s) => claimsOf(s).txn)).toEqual([entry.id]);
  });
});

describe('isolation', () => {
  it('a receiver sees only its own streams: another client of the tenant gets 404 for every operation', async () => {
    const { stream_id } = await createPollStream(rx1);
    const listed = await api().get(`/auth/${A}/ssf/streams`).auth(rx2, { type: 'bearer' });
    expect(listed.body.map((s: { stream_id: string }) => s.stream_id)).not.toContain(stream_id);
    expect(listed.body.every((s: { aud: string }) => s.aud === 'receiver-two')).toBe(true);
    const other = (r: request.Test) => r.auth(rx2, { type: 'bearer' });
    expect((await other(api().get(`/auth/${A}/ssf/streams`).query({ stream_id }))).status).toBe(404);
    expect(
      (await other(api().patch(`/auth/${A}/ssf/streams`).send({ stream_id, description: 'mine now' }))).status,
    ).toBe(404);
    expect((await other(api().get(`/auth/${A}/ssf/status`).query({ stream_id }))).status).toBe(404);
    expect((await other(api().post(`/auth/${A}/ssf/status`).send({ stream_id, status: 'disabled' }))).status).toBe(404);
    expect((await other(api().post(`/auth/${A}/ssf/verify`).send({ stream_id }))).status).toBe(404);
    expect((await other(api().post(`/auth/${A}/ssf/poll/${stream_id}`).send({}))).status).toBe(404);
    expect((await other(api().delete(`/auth/${A}/ssf/streams`).query({ stream_id }))).status).toBe(404);
    expect(
      (await api().get(`/auth/${A}/ssf/status`).query({ stream_id }).auth(rx1, { type: 'bearer' })).body.status,
    ).toBe('enabled');
  });

  it("a tenant's revocations reach only its own streams; another tenant's receiver cannot reach them even with the stream id", async () => {
    const inB = await createPollStream(rxB, B);
    const inA = await createPollStream(rx1, A, { events_requested: [NHE_REVOCATION_EVENT] });
    const entry = await h.revoke({ tenantId: A, nheIdentifier: 'tenant-a-only', reason: 'nhe.deleted' });
    await eventually(async () =>
      Object.values((await poll(rx1, inA.stream_id, { maxEvents: 100 })).body.sets as Record<string, string>).some(
        (s) => claimsOf(s).txn === entry.id,
      ),
    );
    const bSets = (await poll(rxB, inB.stream_id, { maxEvents: 100 }, B)).body.sets as Record<string, string>;
    expect(Object.values(bSets).filter((s) => claimsOf(s).iss !== issuer(B))).toEqual([]);
    expect(Object.values(bSets).some((s) => claimsOf(s).txn === entry.id)).toBe(false);
    expect((await poll(rxB, inA.stream_id, {}, B)).status).toBe(404);
    expect((await poll(rxB, inA.stream_id, {}, A)).status).toBe(401);
  });
});

describe('push endpoint rules (SSRF)', () => {
  it.each([
    ['https://169.254.169.254/latest/meta-data', /link-local/],
    ['https://10.0.0.8/ssf', /private/],
    ['http://receiver.example.com/ssf', /https/],
    ['https://user:pw@receiver.example.com/ssf', /user info/],
  ])('refuses %s', async (endpoint_url, reason) => {
    const res = await api()
      .post(`/auth/${A}/ssf/streams`)
      .auth(rx1, { type: 'bearer' })
      .send({ delivery: { method: DELIVERY_PUSH, endpoint_url } });
    expect(res.status).toBe(400);
    expect(res.body.error_description).toMatch(reason);
  });

  it('never reads back the push authorization header', async () => {
    const res = await api()
      .post(`/auth/${A}/ssf/streams`)
      .auth(rx2, { type: 'bearer' })
      .send({
        delivery: {
          method: DELIVERY_PUSH,
          endpoint_url: 'https://receiver.example.com/ssf',
          authorization_header: 'Bearer s3cret',
        },
      });
    expect(res.status).toBe(201);
    expect(JSON.stringify(res.body)).not.toContain('s3cret');
    expect(res.body.delivery).toEqual({ method: DELIVERY_PUSH, endpoint_url: 'https://receiver.example.com/ssf' });
    await api().delete(`/auth/${A}/ssf/streams`).query({ stream_id: res.body.stream_id }).auth(rx2, { type: 'bearer' });
  });

  it('limits the streams of one receiver', async () => {
    const token = await h.token(A, 'greedy');
    for (let i = 0; i < h.config.SSF_MAX_STREAMS_PER_CLIENT; i++) await createPollStream(token);
    const res = await api()
      .post(`/auth/${A}/ssf/streams`)
      .auth(token, { type: 'bearer' })
      .send({ delivery: { method: DELIVERY_POLL } });
    expect(res.status).toBe(409);
  });
});
