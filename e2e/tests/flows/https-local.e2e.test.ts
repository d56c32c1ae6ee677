/**
 * `npm start` with an https public URL. The topology starts as dev.ts starts it from
 * `PUBLIC_BASE_URL=https://localhost:{port}` (readDevConfig → a loopback certificate issued by a local CA →
 * the router terminates TLS and forwards X-Forwarded-Proto https to services that trust it). Clients trust only
 * that CA (an undici Agent with it, as NODE_EXTRA_CA_CERTS would): openid-client discovers an https issuer and
 * runs the code flow with PKCE, every cookie the provider sets is Secure, and the demo steps the banner prints
 * (the curl script and curl commands) run as printed over https.
 */
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';
import { freePort, repoRoot } from '@idp/testing';
import { FormAgent } from '../../src/clients/form-agent';
import { banner, demoSteps, type BannerInput } from '../../src/dev-banner';
import { readDevConfig } from '../../src/dev-config';
import { routerCertificate, type RouterCertificate } from '../../src/dev-tls';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

let h: Harness;
let dir: string;
let certificate: RouterCertificate;
let agent: Agent;
let baseUrl: string;
/** Every Set-Cookie header the provider sent to tlsFetch, with the URL that set it. */
const setCookies: Array<{ url: string; cookie: string }> = [];

/** fetch that trusts the generated CA and nothing else, and records Set-Cookie headers. */
const tlsFetch = async (url: string, init: object = {}): Promise<Response> => {
  const res = (await undiciFetch(url, { ...init, dispatcher: agent })) as unknown as Response;
  for (const cookie of res.headers.getSetCookie()) setCookies.push({ url, cookie });
  return res;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'idp-dev-tls-'));
  const port = await freePort();
  const config = readDevConfig({ PUBLIC_BASE_URL: `https://localhost:${port}`, TLS_DIR: dir }, repoRoot());
  if (config.tls.kind !== 'generated') throw new Error('expected a generated certificate');
  certificate = await routerCertificate(config.tls);
  agent = new Agent({ connect: { ca: readFileSync(certificate.trustFile, 'utf8') } });
  h = await startHarness('https-local', {
    publicBaseUrl: config.publicBaseUrl,
    routerPort: config.listenPort,
    tls: { cert: certificate.cert, key: certificate.key },
  });
  baseUrl = h.topology.baseUrl;
}, 120_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
  await ifAssigned(agent)?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('the generated CA is kept with its private key 0600, and the served chain verifies only to it', async () => {
  expect(baseUrl).toMatch(/^https:\/\/localhost:\d+$/);
  expect(certificate).toMatchObject({ generated: true, newCa: true, trustFile: join(dir, 'ca.pem') });
  expect(statSync(join(dir, 'ca-key.pem')).mode & 0o777).toBe(0o600);
  expect(statSync(join(dir, 'server-key.pem')).mode & 0o777).toBe(0o600);
  const ca = new X509Certificate(readFileSync(certificate.trustFile));
  expect(ca.ca).toBe(true);
  expect(certificate.trustFingerprint256).toBe(ca.fingerprint256);
  const server = new X509Certificate(certificate.cert);
  expect(server.ca).toBe(false);
  expect(server.checkIssued(ca) && server.verify(ca.publicKey)).toBe(true);
  expect(server.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
  // A client that does not trust the CA is refused; one that does reaches the provider by every loopback name.
  await expect(fetch(`${baseUrl}/auth/${h.tenant.tenantId}/.well-known/openid-configuration`)).rejects.toThrow();
  const port = new URL(baseUrl).port;
  for (const origin of [baseUrl, `https://127.0.0.1:${port}`]) {
    expect((await tlsFetch(`${origin}/auth/${h.tenant.tenantId}/.well-known/openid-configuration`)).status).toBe(200);
  }
  // The router speaks only TLS on that port.
  await expect(
    fetch(`http://127.0.0.1:${port}/auth/${h.tenant.tenantId}/.well-known/openid-configuration`),
  ).rejects.toThrow();
});

it('a second start reuses the trusted CA and issues a fresh server certificate', async () => {
  const again = await routerCertificate({ kind: 'generated', dir, hosts: ['localhost', '127.0.0.1', '::1'] });
  expect(again.newCa).toBe(false);
  expect(again.trustFingerprint256).toBe(certificate.trustFingerprint256);
  expect(new X509Certificate(again.cert).serialNumber).not.toBe(new X509Certificate(certificate.cert).serialNumber);
});

it('openid-client discovers an https issuer and runs the code flow with PKCE and logout; every cookie is Secure', async () => {
  const t = h.tenant;
  const issuer = `${baseUrl}/auth/${t.tenantId}`;
  const config = await oidc.discovery(
    new URL(issuer),
    t.client.clientId,
    t.client.clientSecret,
    oidc.ClientSecretBasic(t.client.clientSecret),
    { [oidc.customFetch]: tlsFetch },
  );
  const meta = config.serverMetadata();
  expect(meta.issuer).toBe(issuer);
  for (const [k, v] of Object.entries(meta).filter(([k]) => k.endsWith('_endpoint') || k === 'jwks_uri'))
    expect([k, v]).toEqual([k, expect.stringMatching(/^https:\/\/localhost:\d+\//)]);

  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: t.client.redirectUri,
    scope: 'openid profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  setCookies.length = 0;
  const browser = new FormAgent(tlsFetch);
  const end = await browser.drive(url.toString(), t.user, t.client.redirectUri);
  const tokens = await oidc.authorizationCodeGrant(config, new URL(end.url), {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
  });
  expect(tokens.claims()?.iss).toBe(issuer);
  const info = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
  expect(info.sub).toBe(tokens.claims()!.sub);

  // RP-initiated logout at the advertised end_session_endpoint: its cookie is set by an express route, Secure only
  // because the router forwards X-Forwarded-Proto https to an oidc-core that trusts it.
  const logout = await browser.request(oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token! }).toString());
  expect(logout.status).toBe(303);

  const names = setCookies.map((c) => c.cookie.split('=')[0]);
  expect(names).toEqual(
    expect.arrayContaining([
      `_session_${t.tenantId}`,
      `_interaction_${t.tenantId}`,
      `_interaction_resume_${t.tenantId}`,
      `_logout_prompt_${t.tenantId}`,
    ]),
  );
  const insecure = setCookies.filter((c) => !/;\s*secure(;|$)/i.test(c.cookie));
  expect(insecure).toEqual([]);
});

it('the banner names the CA and its fingerprint, and its demo steps run as printed over https', async () => {
  const input: BannerInput = {
    baseUrl,
    listen: `https://127.0.0.1:${new URL(baseUrl).port}`,
    demo: h.tenant,
    admin: {
      clientId: h.topology.secrets.bootstrapAdminClientId,
      clientSecret: h.topology.secrets.bootstrapAdminClientSecret,
    },
    certificate,
  };
  const text = banner(input);
  expect(text).toContain(`CA certificate            ${certificate.trustFile}`);
  expect(text).toContain(`CA SHA-256 fingerprint    ${certificate.trustFingerprint256}`);
  expect(text).toContain(`NODE_EXTRA_CA_CERTS=${certificate.trustFile}`);
  const steps = demoSteps(input);
  for (const step of steps)
    expect(text).toContain(
      step.command
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n'),
    );

  const bash = async (commands: string[]) =>
    (
      await promisify(execFile)('bash', ['-c', ['set -euo pipefail', ...commands].join('\n')], {
        cwd: repoRoot(),
        timeout: 60_000,
        env: { PATH: process.env.PATH ?? '' },
      })
    ).stdout;
  const [signIn, exchange, readAudit] = steps;
  const issued = JSON.parse(await bash([signIn!.command, exchange!.command])) as {
    access_token: string;
    issued_token_type: string;
  };
  expect(issued.issued_token_type).toBe('urn:ietf:params:oauth:token-type:access_token');
  const jti = decodeJwt(issued.access_token).jti;
  expect(decodeJwt(issued.access_token)).toMatchObject({
    iss: `${baseUrl}/auth/${h.tenant.tenantId}`,
    act: { sub: `nhe:${h.tenant.nhe.identifier}` },
  });
  // The audit row is written by audit-writer from the stream: ask again (the same printed command) until it is there.
  let rows: Array<{ jti: string }> = [];
  for (let i = 0; i < 20 && !rows.some((r) => r.jti === jti); i++) {
    if (i) await new Promise((r) => setTimeout(r, 250));
    rows = (JSON.parse(await bash([readAudit!.command])) as { items: Array<{ jti: string }> }).items;
  }
  expect(rows.map((r) => r.jti)).toContain(jti);
});

it('a given certificate (TLS_CERT_FILE / TLS_KEY_FILE) is taken as it is (no CA made); the banner names it and leaves trust to the system', async () => {
  const certFile = join(dir, 'server.pem');
  const config = readDevConfig(
    { PUBLIC_BASE_URL: 'https://localhost:8443', TLS_CERT_FILE: certFile, TLS_KEY_FILE: join(dir, 'server-key.pem') },
    repoRoot(),
  );
  if (config.tls.kind !== 'given') throw new Error('expected the given certificate');
  const given = await routerCertificate(config.tls);
  expect(given).toMatchObject({
    generated: false,
    newCa: false,
    certFile,
    trustFile: certFile,
    trustFingerprint256: new X509Certificate(readFileSync(certFile)).fingerprint256,
  });
  const text = banner({
    baseUrl: 'https://localhost:8443',
    listen: 'https://127.0.0.1:8443',
    demo: h.tenant,
    admin: { clientId: 'a', clientSecret: 'b' },
    certificate: given,
  });
  expect(text).toContain(`The router serves https with the given certificate ${certFile}`);
  expect(text).not.toContain('--cacert');
  expect(text).not.toContain('CURL_CA_BUNDLE');
});
