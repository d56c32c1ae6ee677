/**
 * Shared Signals through the dev router (the ingress table) with every service as a process: a tenant admin gives a
 * client the ssf.manage permission on the built-in audience urn:idp:ssf through the management API, the client gets
 * a client-credentials token from oidc-core, discovers the transmitter, creates a poll stream, and receives the SETs
 * of an NHE disabled through the management API, signed with the key in the tenant's JWKS (served by oidc-core).
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { registerSsfReceiver } from '../../src/clients/ssf-receiver';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('ssf-smoke');
}, 120_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

it('discovery, a stream created with a client-credentials token, and the SETs of an NHE disabled in management, by poll', async () => {
  const t = h.tenant.tenantId;
  const base = h.topology.baseUrl;
  const { clientId, token, config, manage } = await registerSsfReceiver(h, 'Orders API (SSF receiver)');
  const receiver = { clientId };

  // Discovery at the SSF 1.0 well-known path, and under the /_api alias.
  expect(config.issuer).toBe(`${base}/auth/${t}`);
  expect(config.configuration_endpoint).toBe(`${base}/auth/${t}/ssf/streams`);
  expect(
    ((await (await fetch(`${base}/_api/auth/${t}/.well-known/ssf-configuration`)).json()) as Record<string, string>)
      .issuer,
  ).toBe(config.issuer);

  const stream = await fetch(config.configuration_endpoint!, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ delivery: { method: 'urn:ietf:rfc:8936' } }),
  });
  expect(stream.status).toBe(201);
  const { stream_id, delivery } = (await stream.json()) as { stream_id: string; delivery: { endpoint_url: string } };
  expect(delivery.endpoint_url).toBe(`${base}/auth/${t}/ssf/poll/${stream_id}`);

  expect((await manage('PATCH', `/non-human-entities/${h.tenant.nhe.id}`, { enabled: false })).status).toBe(200);
  const poll = async (body: Record<string, unknown>) => {
    const res = await fetch(delivery.endpoint_url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { sets: Record<string, string>; moreAvailable: boolean };
  };
  const { sets } = await poll({ returnImmediately: false, maxEvents: 10 });
  let all = sets;
  for (let i = 0; Object.keys(all).length < 2 && i < 20; i++) all = (await poll({ returnImmediately: false })).sets;
  expect(Object.keys(all)).toHaveLength(2);

  const jwks = createRemoteJWKSet(new URL(config.jwks_uri!));
  const events: Record<string, unknown> = {};
  for (const set of Object.values(all)) {
    const { payload } = await jwtVerify(set, jwks, {
      typ: 'secevent+jwt',
      issuer: config.issuer,
      audience: receiver.clientId,
    });
    Object.assign(events, payload.events);
    expect(payload.sub_id).toMatchObject({
      format: 'complex',
      nhe: { format: 'iss_sub', sub: `nhe:${h.tenant.nhe.identifier}` },
    });
  }
  expect(events['https://schemas.openid.net/secevent/caep/event-type/session-revoked']).toMatchObject({
    initiating_entity: 'admin',
  });
  expect(events['urn:vendor:secevent:nhe-revocation']).toMatchObject({
    reason: 'nhe.disabled',
    nhe: h.tenant.nhe.identifier,
  });

  expect(await poll({ ack: Object.keys(all), returnImmediately: true })).toEqual({ sets: {}, moreAvailable: false });
}, 60_000);
