/**
 * The sidecar's grant cache (GRANT_CACHE_TTL_MS), every service a separate process: a subject token's
 * grant is read once and then served from memory, and a grant that ends is still refused at once, because the end
 * travels as an invalidation over NATS (oidc-core publishes `grant` when a grant ends through the provider; any
 * other invalidation of the tenant drops the tenant's grants). The TTL here is a minute, so that only the event can
 * explain a refusal within the test.
 */
import { connectNats, publishInvalidation } from '@idp/events';
import { createLogger } from '@idp/logger';
import { basicAuth } from '../../src/clients/browserless-login';
import { postNheExchange, seededUserLogin, startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

const ENDED = 'subject_token was issued under a grant that has ended (revoked or signed out)';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('grantcache', { sidecarEnv: { GRANT_CACHE_TTL_MS: '60000' } });
}, 120_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

async function exchange(subjectToken: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await postNheExchange(h, subjectToken);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const grantIdOf = (token: string): string =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'))['org.vendor.grant.id'];

/** Deletes a grant's record behind every service's back: no event tells anyone. */
async function deleteGrantSilently(token: string): Promise<void> {
  const res = await h.db.models.OidcPayload.deleteOne({ _id: `${h.tenant.tenantId}:Grant:${grantIdOf(token)}` });
  expect(res.deletedCount).toBe(1);
}

test('a grant is read once and then served from the cache: ended without an event, it still exchanges within the TTL', async () => {
  const tokens = await seededUserLogin(h);
  expect((await exchange(tokens.access_token)).status).toBe(200);
  await deleteGrantSilently(tokens.access_token);
  // The cache answers; without it (GRANT_CACHE_TTL_MS=0, the default) this is invalid_grant (oidc-core's tests).
  expect((await exchange(tokens.access_token)).status).toBe(200);
});

test('a grant ended through oidc-core (refresh token revoked) is refused at once', async () => {
  const tokens = await seededUserLogin(h, { scope: 'openid offline_access', prompt: 'consent' });
  expect(tokens.refresh_token).toEqual(expect.any(String));
  expect((await exchange(tokens.access_token)).status).toBe(200);
  const issuer = `${h.topology.baseUrl}/auth/${h.tenant.tenantId}`;
  const { revocation_endpoint } = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
    revocation_endpoint: string;
  };
  const revoked = await fetch(revocation_endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
    },
    body: new URLSearchParams({ token: tokens.refresh_token!, token_type_hint: 'refresh_token' }),
  });
  expect(revoked.status).toBe(200);
  // oidc-core's publish is flushed before the revocation answers; the sidecar receives it asynchronously (in
  // practice before the next request arrives). Allow it a second, far below the minute's TTL.
  let refused = await exchange(tokens.access_token);
  for (const deadline = Date.now() + 1000; refused.status === 200 && Date.now() < deadline;) {
    await new Promise((r) => setTimeout(r, 50));
    refused = await exchange(tokens.access_token);
  }
  expect([refused.status, refused.body.error, refused.body.error_description]).toEqual([400, 'invalid_grant', ENDED]);
});

test("any other invalidation of the tenant drops the tenant's cached grants; another tenant's does not", async () => {
  const tokens = await seededUserLogin(h);
  expect((await exchange(tokens.access_token)).status).toBe(200);
  await deleteGrantSilently(tokens.access_token);
  const nats = await connectNats(h.nats.url, createLogger({ service: 'e2e', level: 'silent' }), 'e2e-grant-cache');
  try {
    await publishInvalidation(nats.nc, { tenantId: h.tenant.tenantId + 1, kind: 'user', id: 'someone' });
    expect((await exchange(tokens.access_token)).status).toBe(200);
    await publishInvalidation(nats.nc, { tenantId: h.tenant.tenantId, kind: 'user', id: 'someone' });
    // Core NATS delivers to the sidecar asynchronously: give it a moment (far below the minute's TTL).
    await new Promise((r) => setTimeout(r, 200));
    const refused = await exchange(tokens.access_token);
    expect([refused.status, refused.body.error_description]).toEqual([400, ENDED]);
  } finally {
    await nats.close();
  }
});
