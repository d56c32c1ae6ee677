/**
 * An agent's Identity Assertion Authorization Grant in the person's ledger, every service its own process: the seeded
 * agent obtains an ID-JAG for another organisation's authorization server with its delegation token (RFC 8693 token
 * exchange, the contract's subject token of type access_token); the audit writer stores its TokenAudit row from the
 * stream (crossDomain `issued`); the person's agents page lists it as an identity assertion for that server; the
 * page's "Revoke its access now" writes the kill-switch entry naming the person and the agent, which the tenant's
 * Shared Signals transmitter delivers to a subscribed receiver (what the other organisation polls), and the revoked
 * delegation token obtains no further ID-JAG.
 */
import { decodeJwt } from 'jose';
import { registerSsfReceiver } from '../../src/clients/ssf-receiver';
import { basicAuth } from '../../src/clients/browserless-login';
import { FormAgent, parseForms } from '../../src/clients/form-agent';
import { postNheExchange, seededUserToken, startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

jest.setTimeout(120_000);

const PARTNER = 'https://as.partner.example';
const MCP = 'https://mcp.partner.example/mcp';

let h: Harness;
let base = '';
let t = 0;
let delegationToken = '';

const idJag = async (): Promise<{ status: number; body: Record<string, string | number | undefined> }> => {
  const res = await fetch(`${base}/auth/${t}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
    },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      subject_token: delegationToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      audience: PARTNER,
      resource: MCP,
      scope: 'files.read',
    }),
  });
  return { status: res.status, body: (await res.json()) as never };
};

beforeAll(async () => {
  h = await startHarness('agent-id-jag-ledger');
  base = h.topology.baseUrl;
  t = h.tenant.tenantId;
  await h.db.models.IdJagAudience.create({
    tenantId: t,
    audience: PARTNER,
    resources: [MCP],
    clients: [{ clientId: h.tenant.client.clientId, clientIdAtAudience: 'partner-42' }],
    agents: [h.tenant.nhe.identifier],
    scopes: ['files.read'],
  });
  const exchanged = await postNheExchange(h, await seededUserToken(h));
  expect(exchanged.status).toBe(200);
  delegationToken = ((await exchanged.json()) as { access_token: string }).access_token;
}, 120_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

it('the ID-JAG is audited, listed in the ledger, and revoked with the agent through the Shared Signals transmitter', async () => {
  const receiver = await registerSsfReceiver(h, 'Partner AS (SSF receiver)');
  const stream = await fetch(receiver.config.configuration_endpoint!, {
    method: 'POST',
    headers: { authorization: `Bearer ${receiver.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ delivery: { method: 'urn:ietf:rfc:8936' } }),
  });
  expect(stream.status).toBe(201);
  const { delivery } = (await stream.json()) as { delivery: { endpoint_url: string } };

  const issued = await idJag();
  expect(issued.status).toBe(200);
  const assertion = decodeJwt(String(issued.body.access_token));
  expect(assertion).toMatchObject({ sub: h.tenant.user.id, act: { sub: `nhe:${h.tenant.nhe.identifier}` } });
  const jti = assertion.jti!;

  // The audit writer stores the row from the stream, a moment after the issuance.
  let row = null;
  for (let i = 0; i < 40 && !row; i++) {
    row = await h.db.models.TokenAudit.findOne({ tenantId: t, jti }).lean();
    if (!row) await new Promise((r) => setTimeout(r, 250));
  }
  expect(row).toMatchObject({
    nheIdentifier: h.tenant.nhe.identifier,
    resourceServer: MCP,
    crossDomain: { direction: 'issued', peer: PARTNER, assertionJti: jti },
  });

  // The person's agents page, signed in on the tenant's login page as a browser would.
  const ledgerUrl = `${base}/auth/${t}/account/agents`;
  const browser = new FormAgent();
  const signedIn = await browser.drive(ledgerUrl, h.tenant.user, ledgerUrl);
  expect(signedIn.url.startsWith(ledgerUrl)).toBe(true);
  const page = await (await browser.request(ledgerUrl)).text();
  const section =
    new RegExp(`<section[^>]*data-nhe="${h.tenant.nhe.identifier}"[^>]*>([\\s\\S]*?)</section>`).exec(page)?.[1] ?? '';
  expect(section).toContain(`<li data-jti="${jti}">identity assertion for <strong>${PARTNER}</strong> (${MCP})`);

  const revoke = parseForms(section, ledgerUrl).find((f) => f.action.endsWith('/revoke'))!;
  const answer = await browser.submit(revoke);
  expect(answer.status).toBe(303);
  const after = await (await browser.request(new URL(answer.headers.get('location')!, ledgerUrl).href)).text();
  expect(after).toContain(`data-jti="${jti}" data-revoked="true">Revoked: identity assertion for`);

  // The subscribed receiver gets the revocation naming the person and the agent.
  const sets: string[] = [];
  for (let i = 0; i < 20 && !sets.some((s) => JSON.stringify(decodeJwt(s)).includes('user.agent.revoked')); i++) {
    const res = await fetch(delivery.endpoint_url, {
      method: 'POST',
      headers: { authorization: `Bearer ${receiver.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ returnImmediately: false, maxEvents: 10 }),
    });
    expect(res.status).toBe(200);
    sets.push(...Object.values(((await res.json()) as { sets: Record<string, string> }).sets));
  }
  const revocation = sets.map((s) => decodeJwt(s)).find((p) => JSON.stringify(p).includes('user.agent.revoked'));
  expect(revocation?.sub_id).toMatchObject({
    format: 'complex',
    nhe: { format: 'iss_sub', sub: `nhe:${h.tenant.nhe.identifier}` },
  });
  expect(JSON.stringify(revocation?.sub_id)).toContain(h.tenant.user.id);

  // The revoked delegation token obtains no further ID-JAG.
  const again = await idJag();
  expect([again.status, again.body.error]).toEqual([400, 'invalid_grant']);
});
