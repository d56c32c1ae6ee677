/**
 * Where claims are released (ID token or UserInfo) and the acr a login states, through openid-client (the certified
 * relying-party library: discovery, authorization URL, code exchange with ID token validation, UserInfo) against
 * oidc-core on a loopback port; the person's steps (login, TOTP, consent) are plain form posts with a cookie jar.
 * - OpenID Connect Core 5.4: with `scope=openid email` the ID token has no email and UserInfo has it (the access
 *   token can call UserInfo); the claims parameter (5.5) still puts a claim where it asks, voluntary or essential,
 *   in the ID token or in UserInfo.
 * - acr (5.5.1.1, acr_values 3.1.2.1): `urn:idp:acr:pwd` for a password alone, `urn:idp:acr:mfa` with the TOTP
 *   second factor; voluntary acr_values get what the login did; an essential mfa for a signed-in password session
 *   asks only the TOTP code (step-up), and fails with unmet_authentication_requirements for a user without TOTP.
 */
import { generateSecret } from 'otplib';
import * as oidc from 'openid-client';
import { createClient } from '@idp/testing';
import { hashPassword, sealTotpSecret } from '@idp/tokens';
import { ACR_MFA, ACR_PWD } from '../src/domain/acr';
import { currentTotp } from '../src/domain/totp';
import { AMR_PASSWORD, AMR_PASSWORD_TOTP } from '../src/routes/interactions';
import { Browser, PEPPER, startPagesApp, type PagesApp } from './pages-app';

const REDIRECT = 'http://127.0.0.1:8403/callback';
const OUTSIDE_REDIRECT = 'http://127.0.0.1:8404/callback';
const PASSWORD = 'acr user password 1';

let app: PagesApp;
let issuer: string;
let rp: oidc.Configuration;
let outside: oidc.Configuration;

const profile = { name: 'Pat Example', given_name: 'Pat', email: 'pat@example.com', email_verified: true };

interface Person {
  id: string;
  username: string;
  secret?: string;
}

let n = 0;
/** A fresh user (with TOTP when `totp`): each TOTP step is accepted once per user, so tests do not share one. */
async function person(o: { totp?: boolean } = {}): Promise<Person> {
  const username = `pat${++n}`;
  const user = await app.db.models.User.create({
    tenantId: app.tenant.tenantId,
    username,
    passwordHash: await hashPassword(PASSWORD),
    claims: profile,
  });
  const p: Person = { id: String(user._id), username };
  if (o.totp) await enrolTotp(p);
  return p;
}

async function enrolTotp(p: Person): Promise<void> {
  p.secret = generateSecret();
  await app.db.models.User.updateOne(
    { _id: p.id },
    { $set: { totpSecret: sealTotpSecret(app.keyStore.kek, app.tenant.tenantId, p.id, p.secret) } },
  );
}

beforeAll(async () => {
  app = await startPagesApp('claimsacr');
  const t = app.tenant.tenantId;
  issuer = `${app.baseUrl}/auth/${t}`;
  const mine = await createClient(app.db.models, PEPPER, {
    tenantId: t,
    clientId: 'acr-app',
    name: 'ACR App',
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: [REDIRECT],
    firstParty: true,
  });
  const third = await createClient(app.db.models, PEPPER, {
    tenantId: t,
    clientId: 'outside-app',
    name: 'Outside App',
    grantTypes: ['authorization_code'],
    redirectUris: [OUTSIDE_REDIRECT],
  });
  const discover = (c: { clientId: string; clientSecret: string }) =>
    oidc.discovery(new URL(issuer), c.clientId, c.clientSecret, oidc.ClientSecretBasic(c.clientSecret), {
      execute: [oidc.allowInsecureRequests],
    });
  [rp, outside] = await Promise.all([discover(mine), discover(third)]);
}, 60_000);

afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
});

/** What the person did on the way: the pages the interaction showed. */
type Steps = Array<'password' | 'totp' | 'consent'>;

/**
 * An authorization request built by openid-client, walked through by `who` in `browser` (password, TOTP code,
 * consent as the pages ask), then the code exchange (ID token validated by openid-client). Resolves with the
 * tokens and the steps taken, or rejects with the authorization error the redirect URI received.
 */
async function authorize(
  who: Person,
  params: Record<string, string>,
  o: { browser?: Browser; config?: oidc.Configuration; redirectUri?: string } = {},
): Promise<{
  tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers;
  claims: oidc.IDToken;
  steps: Steps;
  browser: Browser;
}> {
  const config = o.config ?? rp;
  const redirectUri = o.redirectUri ?? REDIRECT;
  const browser = o.browser ?? new Browser(app.baseUrl);
  const verifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    nonce,
    state,
    ...params,
  });
  const steps: Steps = [];
  let location: string | undefined = url.toString();
  let callback: URL | undefined;
  for (let i = 0; i < 20 && location && !callback; i++) {
    const target = new URL(location, app.baseUrl);
    if (target.toString().startsWith(redirectUri)) {
      callback = target;
      break;
    }
    const res = await browser.go(target.toString());
    if (res.status !== 200 || !/\/interaction\/[^/]+$/.test(target.pathname)) {
      location = res.location;
      if (!location) throw new Error(`stuck at ${target.pathname}: ${res.status} ${res.text.slice(0, 200)}`);
      continue;
    }
    let answer;
    if (/name="password"/.test(res.text)) {
      steps.push('password');
      answer = await browser.go(`${target.pathname}/login`, { form: { username: who.username, password: PASSWORD } });
    } else if (/autocomplete="one-time-code"/.test(res.text)) {
      steps.push('totp');
      if (!who.secret) throw new Error('asked for a TOTP code of a user without TOTP');
      answer = await browser.go(`${target.pathname}/totp`, { form: { code: await currentTotp(who.secret) } });
    } else {
      steps.push('consent');
      answer = await browser.go(`${target.pathname}/confirm`, { form: {} });
    }
    if (answer.status !== 303) throw new Error(`interaction answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    location = answer.location;
  }
  if (!callback) throw new Error('did not reach the redirect URI');
  const tokens = await oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedNonce: nonce,
    expectedState: state,
    idTokenExpected: true,
  });
  return { tokens, claims: tokens.claims()!, steps, browser };
}

/** The authorization error (error, description) a request ends with, and the steps taken before it. */
async function authorizeError(
  who: Person,
  params: Record<string, string>,
  browser?: Browser,
): Promise<{ error: string; description?: string }> {
  try {
    await authorize(who, params, { browser });
  } catch (err) {
    if (err instanceof oidc.AuthorizationResponseError) return { error: err.error, description: err.error_description };
    throw err;
  }
  throw new Error('the authorization request succeeded');
}

const userinfo = (tokens: { access_token: string }, sub: string) =>
  oidc.fetchUserInfo(rp, tokens.access_token, sub) as Promise<Record<string, unknown>>;

describe('discovery (openid-client)', () => {
  it('advertises acr_values_supported and claims_parameter_supported', () => {
    const meta = rp.serverMetadata();
    expect(meta.acr_values_supported).toEqual([ACR_PWD, ACR_MFA]);
    expect(meta.claims_parameter_supported).toBe(true);
    expect(meta.claims_supported).toEqual(expect.arrayContaining(['acr', 'email', 'name']));
  });
});

describe('scope-requested claims: UserInfo, not the ID token (OpenID Connect Core 5.4)', () => {
  it('scope=openid email: email in UserInfo and not in the ID token', async () => {
    const p = await person();
    const { tokens, claims } = await authorize(p, { scope: 'openid email' });
    expect(claims.sub).toBe(p.id);
    expect(claims).not.toHaveProperty('email');
    expect(claims).not.toHaveProperty('email_verified');
    expect(await userinfo(tokens, p.id)).toEqual({ sub: p.id, email: profile.email, email_verified: true });
  });

  it('scope=openid profile: name in UserInfo and not in the ID token', async () => {
    const p = await person();
    const { tokens, claims } = await authorize(p, { scope: 'openid profile' });
    expect(claims).not.toHaveProperty('name');
    expect(await userinfo(tokens, p.id)).toMatchObject({ name: profile.name, given_name: profile.given_name });
  });

  it('a refreshed ID token follows the same rule', async () => {
    const p = await person();
    const { tokens } = await authorize(p, { scope: 'openid email offline_access', prompt: 'consent' });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const refreshed = await oidc.refreshTokenGrant(rp, tokens.refresh_token!);
    expect(refreshed.claims()).not.toHaveProperty('email');
    expect(await userinfo(refreshed, p.id)).toMatchObject({ email: profile.email });
  });

  it('a UserInfo-audience JWT access token can call UserInfo: the same rule', async () => {
    const p = await person();
    const { tokens, claims } = await authorize(p, { scope: 'openid email', resource: `${issuer}/me` });
    expect(tokens.access_token.split('.')).toHaveLength(3);
    expect(claims).not.toHaveProperty('email');
    expect(await userinfo(tokens, p.id)).toMatchObject({ email: profile.email });
  });
});

describe('the claims request parameter (OpenID Connect Core 5.5)', () => {
  it('claims={"id_token":{"email":null}} puts email in the ID token (scope openid only: not in UserInfo)', async () => {
    const p = await person();
    const { tokens, claims } = await authorize(p, {
      scope: 'openid',
      claims: JSON.stringify({ id_token: { email: null } }),
    });
    expect(claims.email).toBe(profile.email);
    expect(claims).not.toHaveProperty('email_verified');
    expect(await userinfo(tokens, p.id)).toEqual({ sub: p.id });
  });

  it('with scope email too, the requested claim is in both', async () => {
    const p = await person();
    const { tokens, claims } = await authorize(p, {
      scope: 'openid email',
      claims: JSON.stringify({ id_token: { email: null } }),
    });
    expect(claims.email).toBe(profile.email);
    expect(claims).not.toHaveProperty('email_verified');
    expect(await userinfo(tokens, p.id)).toMatchObject({ email: profile.email, email_verified: true });
  });

  it('voluntary userinfo claim: name in UserInfo only', async () => {
    const p = await person();
    const { tokens, claims } = await authorize(p, {
      scope: 'openid',
      claims: JSON.stringify({ userinfo: { name: null } }),
    });
    expect(claims).not.toHaveProperty('name');
    expect(await userinfo(tokens, p.id)).toEqual({ sub: p.id, name: profile.name });
  });

  it('essential claims in both places: each where it was asked', async () => {
    const p = await person();
    const request = {
      userinfo: { name: { essential: true } },
      id_token: { email: { essential: true }, given_name: { essential: true } },
    };
    const { tokens, claims } = await authorize(p, { scope: 'openid', claims: JSON.stringify(request) });
    expect(claims.email).toBe(profile.email);
    expect(claims.given_name).toBe(profile.given_name);
    expect(claims).not.toHaveProperty('name');
    expect(await userinfo(tokens, p.id)).toEqual({ sub: p.id, name: profile.name });
  });

  it('an essential claim the user does not have is left out, not an error', async () => {
    const p = await person();
    const { tokens, claims } = await authorize(p, {
      scope: 'openid',
      claims: JSON.stringify({
        id_token: { phone_number: { essential: true } },
        userinfo: { phone_number: { essential: true } },
      }),
    });
    expect(claims).not.toHaveProperty('phone_number');
    expect(await userinfo(tokens, p.id)).toEqual({ sub: p.id });
  });

  it('a third-party client: the consent page lists the claims asked by name', async () => {
    const p = await person();
    const browser = new Browser(app.baseUrl);
    const url = oidc.buildAuthorizationUrl(outside, {
      redirect_uri: OUTSIDE_REDIRECT,
      scope: 'openid',
      claims: JSON.stringify({ id_token: { email: null } }),
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const start = await browser.go(url.toString());
    const login = await browser.go(`${new URL(start.location!, app.baseUrl).pathname}/login`, {
      form: { username: p.username, password: PASSWORD },
    });
    const resumed = await browser.go(login.location!);
    const consent = await browser.go(resumed.location!);
    expect(consent.text).toContain('Allow Outside App to access your account?');
    expect(consent.text).toContain('<li>email <span class="muted">(claim)</span></li>');
  });
});

describe('acr and acr_values', () => {
  it('without acr_values or an acr claim request the ID token carries no acr', async () => {
    const p = await person();
    const { claims } = await authorize(p, { scope: 'openid amr' });
    expect(claims).not.toHaveProperty('acr');
    expect(claims.amr).toEqual(AMR_PASSWORD);
  });

  it('voluntary acr_values, password alone: acr pwd, amr pwd (what the login did)', async () => {
    const p = await person();
    const { claims, steps } = await authorize(p, { scope: 'openid amr', acr_values: `${ACR_MFA} ${ACR_PWD}` });
    expect(steps).toEqual(['password']);
    expect(claims.acr).toBe(ACR_PWD);
    expect(claims.amr).toEqual(AMR_PASSWORD);
  });

  it('voluntary acr_values=mfa for a user without TOTP: no error, acr pwd', async () => {
    const p = await person();
    const { claims } = await authorize(p, { scope: 'openid', acr_values: ACR_MFA });
    expect(claims.acr).toBe(ACR_PWD);
  });

  it('voluntary acr_values, password and TOTP: acr mfa, amr pwd otp mfa', async () => {
    const p = await person({ totp: true });
    const { claims, steps } = await authorize(p, { scope: 'openid amr', acr_values: ACR_PWD });
    expect(steps).toEqual(['password', 'totp']);
    expect(claims.acr).toBe(ACR_MFA);
    expect(claims.amr).toEqual(AMR_PASSWORD_TOTP);
  });

  it('essential acr mfa, TOTP user signed in with a password only: step-up asks only the TOTP code, then acr mfa', async () => {
    // Signed in before the second factor was enrolled: the session's login was a password alone.
    const p = await person();
    const first = await authorize(p, { scope: 'openid amr', max_age: '3600' });
    expect(first.steps).toEqual(['password']);
    await enrolTotp(p);
    await new Promise((r) => setTimeout(r, 1100));
    const essential = JSON.stringify({ id_token: { acr: { essential: true, value: ACR_MFA } } });

    // Without interaction it cannot be met.
    expect((await authorizeError(p, { scope: 'openid', prompt: 'none', claims: essential }, first.browser)).error).toBe(
      'login_required',
    );

    const stepped = await authorize(
      p,
      { scope: 'openid amr', max_age: '3600', claims: essential },
      { browser: first.browser },
    );
    expect(stepped.steps).toEqual(['totp']);
    expect(stepped.claims.sub).toBe(p.id);
    expect(stepped.claims.acr).toBe(ACR_MFA);
    expect(stepped.claims.amr).toEqual(AMR_PASSWORD_TOTP);
    // A new authentication: auth_time moves on.
    expect(stepped.claims.auth_time).toBeGreaterThan(first.claims.auth_time as number);

    // The session now meets it: no interaction at all, also for a request listing mfa among essential values.
    const again = await authorize(
      p,
      { scope: 'openid', claims: JSON.stringify({ id_token: { acr: { essential: true, values: [ACR_MFA] } } }) },
      { browser: first.browser },
    );
    expect(again.steps).toEqual([]);
    expect(again.claims.acr).toBe(ACR_MFA);
  });

  it('essential acr mfa asked with "values"; a wrong TOTP code at step-up does not sign in', async () => {
    const p = await person();
    const first = await authorize(p, { scope: 'openid' });
    await enrolTotp(p);
    const browser = first.browser;
    const url = oidc.buildAuthorizationUrl(rp, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      claims: JSON.stringify({ id_token: { acr: { essential: true, values: [ACR_MFA] } } }),
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const start = await browser.go(url.toString());
    const interaction = new URL(start.location!, app.baseUrl).pathname;
    const page = await browser.go(interaction);
    expect(page.text).toContain('autocomplete="one-time-code"');
    expect(page.text).not.toContain('name="password"');
    const right = await currentTotp(p.secret!);
    const wrong = await browser.go(`${interaction}/totp`, { form: { code: right === '000000' ? '111111' : '000000' } });
    expect(wrong.status).toBe(401);
  });

  it('essential acr mfa for a user without TOTP (not signed in): unmet_authentication_requirements after the password', async () => {
    const p = await person();
    const { error, description } = await authorizeError(p, {
      scope: 'openid',
      claims: JSON.stringify({ id_token: { acr: { essential: true, value: ACR_MFA } } }),
    });
    expect(error).toBe('unmet_authentication_requirements');
    expect(description).toMatch(/second factor/);
  });

  it('essential acr mfa for a signed-in user without TOTP: unmet_authentication_requirements, no page shown', async () => {
    const p = await person();
    const first = await authorize(p, { scope: 'openid' });
    const browser = first.browser;
    const url = oidc.buildAuthorizationUrl(rp, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 's1',
      claims: JSON.stringify({ id_token: { acr: { essential: true, value: ACR_MFA } } }),
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const start = await browser.go(url.toString());
    const page = await browser.go(start.location!);
    expect(page.status).toBe(303);
    const resumed = await browser.go(page.location!);
    const back = new URL(resumed.location!);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('error')).toBe('unmet_authentication_requirements');
    expect(back.searchParams.get('state')).toBe('s1');
    expect(back.searchParams.get('iss')).toBe(issuer);
  });

  it('an essential acr that is not supported: unmet_authentication_requirements before any page', async () => {
    const p = await person({ totp: true });
    const { error } = await authorizeError(p, {
      scope: 'openid',
      claims: JSON.stringify({ id_token: { acr: { essential: true, values: ['urn:other:loa:4'] } } }),
    });
    expect(error).toBe('unmet_authentication_requirements');
  });

  it('essential acr pwd for an mfa session: met without a new login, the ID token states pwd (a requested value)', async () => {
    const p = await person({ totp: true });
    const first = await authorize(p, { scope: 'openid amr' });
    expect(first.steps).toEqual(['password', 'totp']);
    const again = await authorize(
      p,
      { scope: 'openid amr', claims: JSON.stringify({ id_token: { acr: { essential: true, value: ACR_PWD } } }) },
      { browser: first.browser },
    );
    expect(again.steps).toEqual([]);
    expect(again.claims.acr).toBe(ACR_PWD);
    expect(again.claims.amr).toEqual(AMR_PASSWORD_TOTP);
  });

  it('acr survives refresh', async () => {
    const p = await person({ totp: true });
    const { tokens, claims } = await authorize(p, {
      scope: 'openid offline_access',
      prompt: 'consent',
      acr_values: ACR_MFA,
    });
    expect(claims.acr).toBe(ACR_MFA);
    const refreshed = await oidc.refreshTokenGrant(rp, tokens.refresh_token!);
    expect(refreshed.claims()?.acr).toBe(ACR_MFA);
  });
});
