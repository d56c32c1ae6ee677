/**
 * Keycloak as the upstream OpenID Provider and SAML 2.0 IdP of the upstream sign-in tests, with the realms of
 * e2e/fixtures/keycloak/ (see its README.md for the clients, users and claims). One Keycloak serves every test
 * file of a run: scripts/test.sh starts it and exports KEYCLOAK_URL. Without KEYCLOAK_URL, `keycloak()` starts one
 * for this process (a single file run by hand; ~35-60 s on 2 cores) and stops it when the process exits.
 *
 * Tests change users through the admin REST API (setUserGroups, setUserEnabled, ...). Those changes are seen by
 * every test file of the run: a test that changes a user should use one of its own (createUser).
 */
import { randomBytes } from 'node:crypto';
import { startCounterpart } from './counterpart-process';

/** The bootstrap admin of the master realm (loopback-only test instance). */
export const KEYCLOAK_ADMIN = { username: 'admin', password: 'admin' } as const;
/** Every fixture user's password. */
export const KEYCLOAK_PASSWORD = 'Passw0rd!';
/** The clients of the fixture realms. */
export const KEYCLOAK_CLIENTS = {
  corp: { clientId: 'broker', clientSecret: 'broker-secret', samlClientId: 'urn:idp-test:sp:keycloak' },
  other: { clientId: 'broker', clientSecret: 'other-secret' },
} as const;
export type KeycloakRealm = keyof typeof KEYCLOAK_CLIENTS;

const START_TIMEOUT_S = 180;

export interface KeycloakUser {
  username: string;
  email?: string;
  emailVerified?: boolean;
  firstName?: string;
  lastName?: string;
  groups?: string[];
  enabled?: boolean;
}

export interface Keycloak {
  /** Base URL, e.g. http://127.0.0.1:23456. */
  url: string;
  /** The realm's issuer (`iss` of its ID tokens, SAML Issuer), e.g. http://127.0.0.1:23456/realms/corp. */
  issuer: (realm: string) => string;
  /** The realm's SAML 2.0 IdP metadata (EntityDescriptor with the signing certificate). */
  samlDescriptorUrl: (realm: string) => string;
  /** A master-realm admin access token (cached until shortly before it expires). */
  adminToken: () => Promise<string>;
  /** Replaces the user's group memberships with `groups` (top-level group names). */
  setUserGroups: (realm: string, username: string, groups: string[]) => Promise<void>;
  setUserEnabled: (realm: string, username: string, enabled: boolean) => Promise<void>;
  setUserEmail: (realm: string, username: string, email: string, emailVerified: boolean) => Promise<void>;
  /** Number of the user's Keycloak SSO sessions (for logout tests). */
  userSessions: (realm: string, username: string) => Promise<number>;
  /** Ends every session of the user at Keycloak (admin logout; sends no front-channel logout to SAML SPs). */
  logoutUser: (realm: string, username: string) => Promise<void>;
  /**
   * Creates a user with password KEYCLOAK_PASSWORD; the username gets a random suffix so that parallel test files
   * never share one. Returns the username.
   */
  createUser: (realm: string, user: KeycloakUser) => Promise<string>;
  /**
   * Points the SAML client's front-channel Single Logout (HTTP-Redirect) at the broker's `.../saml/slo`: Keycloak
   * keeps one fixed SLO URL per client, so the test that exercises SLO sets its own.
   */
  setSamlLogoutUrl: (sloUrl: string, realm?: string, clientId?: string) => Promise<void>;
  /** Stops it if this process started it (a no-op for the shared instance of KEYCLOAK_URL). */
  stop: () => Promise<void>;
  /**
   * Creates a client in the realm from its representation (ClientRepresentation of the admin REST API); returns
   * Keycloak's internal id of it.
   */
  createClient: (realm: string, client: Record<string, unknown>) => Promise<string>;
  /** Deletes the client with this clientId (a no-op when the realm has none). */
  deleteClient: (realm: string, clientId: string) => Promise<void>;
  /** Sets these attributes of the client (the others are kept). */
  setClientAttributes: (realm: string, clientId: string, attributes: Record<string, string>) => Promise<void>;
  /**
   * Empties the realm's cache of external public keys (clients' JWKS for signed-JWT client authentication,
   * identity providers' keys): the next use fetches them again.
   */
  clearKeysCache: (realm: string) => Promise<void>;
  /**
   * Creates a realm from its representation (RealmRepresentation: clients, users and groups may come with it).
   * Keycloak gives a new realm its own generated keys (RSA signing key among them).
   */
  createRealm: (realm: Record<string, unknown> & { realm: string }) => Promise<void>;
  /** Deletes the realm with everything in it (a no-op when there is none). */
  deleteRealm: (realm: string) => Promise<void>;
  /**
   * Rotates the realm's RS256 signing key: adds an `rsa-generated` key provider with a priority above every other,
   * and disables the RS256 key providers there were, so that from now on only the new key signs (tokens and SAML
   * messages) and only its certificate is published (JWKS, SAML IdP descriptor). Returns the new key's kid and its
   * certificate (base64 DER, as an X509Certificate element carries it).
   */
  rotateRealmKey: (realm: string) => Promise<{ kid: string; certificate: string }>;
}

interface UserRepresentation {
  id: string;
  username: string;
  email?: string;
  emailVerified?: boolean;
  enabled?: boolean;
  [key: string]: unknown;
}

class KeycloakAdminError extends Error {}

function keycloakAt(url: string, stop: () => Promise<void>): Keycloak {
  let token: { value: string; expiresAt: number } | undefined;

  const adminToken = async (): Promise<string> => {
    if (token && token.expiresAt > Date.now()) return token.value;
    const res = await fetch(`${url}/realms/master/protocol/openid-connect/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'password',
        client_id: 'admin-cli',
        username: KEYCLOAK_ADMIN.username,
        password: KEYCLOAK_ADMIN.password,
      }),
    });
    if (!res.ok) throw new KeycloakAdminError(`Keycloak admin token: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { access_token: string; expires_in: number };
    token = { value: body.access_token, expiresAt: Date.now() + (body.expires_in - 10) * 1000 };
    return body.access_token;
  };

  const admin = async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${url}/admin/realms${path}`, {
      method,
      headers: {
        authorization: `Bearer ${await adminToken()}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new KeycloakAdminError(`Keycloak ${method} ${path}: ${res.status} ${await res.text()}`);
    const text = await res.text();
    return (text === '' ? undefined : JSON.parse(text)) as T;
  };

  const user = async (realm: string, username: string): Promise<UserRepresentation> => {
    const users = await admin<UserRepresentation[]>(
      'GET',
      `/${realm}/users?exact=true&username=${encodeURIComponent(username)}`,
    );
    const found = users.find((u) => u.username === username.toLowerCase());
    if (!found) throw new KeycloakAdminError(`Keycloak realm ${realm} has no user ${username}`);
    return found;
  };

  const updateUser = async (realm: string, username: string, patch: Partial<UserRepresentation>): Promise<void> => {
    const current = await user(realm, username);
    await admin('PUT', `/${realm}/users/${current.id}`, { ...current, ...patch });
  };

  const setUserGroups = async (realm: string, username: string, groups: string[]): Promise<void> => {
    const { id } = await user(realm, username);
    const all = await admin<Array<{ id: string; name: string }>>('GET', `/${realm}/groups?briefRepresentation=true`);
    const wanted = groups.map((name) => {
      const group = all.find((g) => g.name === name);
      if (!group) throw new KeycloakAdminError(`Keycloak realm ${realm} has no group ${name}`);
      return group.id;
    });
    const current = await admin<Array<{ id: string }>>('GET', `/${realm}/users/${id}/groups`);
    for (const g of current) if (!wanted.includes(g.id)) await admin('DELETE', `/${realm}/users/${id}/groups/${g.id}`);
    for (const g of wanted)
      if (!current.some((c) => c.id === g)) await admin('PUT', `/${realm}/users/${id}/groups/${g}`);
  };

  return {
    url,
    issuer: (realm) => `${url}/realms/${realm}`,
    samlDescriptorUrl: (realm) => `${url}/realms/${realm}/protocol/saml/descriptor`,
    adminToken,
    setUserGroups,
    setUserEnabled: (realm, username, enabled) => updateUser(realm, username, { enabled }),
    setUserEmail: (realm, username, email, emailVerified) => updateUser(realm, username, { email, emailVerified }),
    userSessions: async (realm, username) => {
      const { id } = await user(realm, username);
      return (await admin<unknown[]>('GET', `/${realm}/users/${id}/sessions`)).length;
    },
    logoutUser: async (realm, username) => {
      const { id } = await user(realm, username);
      await admin('POST', `/${realm}/users/${id}/logout`);
    },
    createUser: async (realm, u) => {
      const username = `${u.username}-${randomBytes(4).toString('hex')}`.toLowerCase();
      await admin('POST', `/${realm}/users`, {
        username,
        enabled: u.enabled ?? true,
        email: u.email,
        emailVerified: u.emailVerified ?? false,
        firstName: u.firstName ?? u.username,
        lastName: u.lastName ?? 'Test',
        requiredActions: [],
        credentials: [{ type: 'password', value: KEYCLOAK_PASSWORD, temporary: false }],
      });
      if (u.groups) await setUserGroups(realm, username, u.groups);
      return username;
    },
    setSamlLogoutUrl: async (sloUrl, realm = 'corp', clientId = KEYCLOAK_CLIENTS.corp.samlClientId) => {
      const clients = await admin<Array<{ id: string; clientId: string; attributes?: Record<string, string> }>>(
        'GET',
        `/${realm}/clients?clientId=${encodeURIComponent(clientId)}`,
      );
      const client = clients.find((c) => c.clientId === clientId);
      if (client === undefined) throw new KeycloakAdminError(`Keycloak realm ${realm} has no client ${clientId}`);
      await admin('PUT', `/${realm}/clients/${client.id}`, {
        ...client,
        frontchannelLogout: true,
        attributes: { ...client.attributes, saml_single_logout_service_url_redirect: sloUrl },
      });
    },
    stop,
    createClient: async (realm, client) => {
      await admin('POST', `/${realm}/clients`, client);
      const clientId = String(client.clientId);
      const found = await admin<Array<{ id: string; clientId: string }>>(
        'GET',
        `/${realm}/clients?clientId=${encodeURIComponent(clientId)}`,
      );
      const created = found.find((c) => c.clientId === clientId);
      if (created === undefined)
        throw new KeycloakAdminError(`Keycloak realm ${realm}: client ${clientId} not created`);
      return created.id;
    },
    deleteClient: async (realm, clientId) => {
      const found = await admin<Array<{ id: string; clientId: string }>>(
        'GET',
        `/${realm}/clients?clientId=${encodeURIComponent(clientId)}`,
      );
      for (const c of found.filter((one) => one.clientId === clientId))
        await admin('DELETE', `/${realm}/clients/${c.id}`);
    },
    setClientAttributes: async (realm, clientId, attributes) => {
      const found = await admin<Array<{ id: string; clientId: string; attributes?: Record<string, string> }>>(
        'GET',
        `/${realm}/clients?clientId=${encodeURIComponent(clientId)}`,
      );
      const client = found.find((c) => c.clientId === clientId);
      if (client === undefined) throw new KeycloakAdminError(`Keycloak realm ${realm} has no client ${clientId}`);
      await admin('PUT', `/${realm}/clients/${client.id}`, {
        ...client,
        attributes: { ...client.attributes, ...attributes },
      });
    },
    clearKeysCache: async (realm) => {
      await admin('POST', `/${realm}/clear-keys-cache`);
    },
    createRealm: async (realm) => {
      await admin('POST', '', realm);
    },
    deleteRealm: async (realm) => {
      const res = await fetch(`${url}/admin/realms/${encodeURIComponent(realm)}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${await adminToken()}` },
      });
      if (!res.ok && res.status !== 404)
        throw new KeycloakAdminError(`Keycloak DELETE realm ${realm}: ${res.status} ${await res.text()}`);
    },
    rotateRealmKey: async (realm) => {
      const KEY_PROVIDER = 'org.keycloak.keys.KeyProvider';
      const { id: realmId } = await admin<{ id: string }>('GET', `/${realm}`);
      interface Keys {
        keys: Array<{
          kid: string;
          algorithm?: string;
          use?: string;
          providerId: string;
          providerPriority: number;
          certificate?: string;
        }>;
      }
      const before = await admin<Keys>('GET', `/${realm}/keys`);
      const signing = before.keys.filter((k) => k.algorithm === 'RS256' && k.use === 'SIG');
      const top = Math.max(100, ...before.keys.map((k) => k.providerPriority));
      await admin('POST', `/${realm}/components`, {
        name: `rsa-rotated-${randomBytes(4).toString('hex')}`,
        providerId: 'rsa-generated',
        providerType: KEY_PROVIDER,
        parentId: realmId,
        config: {
          priority: [String(top + 100)],
          keySize: ['2048'],
          active: ['true'],
          enabled: ['true'],
          algorithm: ['RS256'],
        },
      });
      for (const old of signing) {
        const component = await admin<{ config?: Record<string, string[]> } & Record<string, unknown>>(
          'GET',
          `/${realm}/components/${old.providerId}`,
        );
        await admin('PUT', `/${realm}/components/${old.providerId}`, {
          ...component,
          config: { ...component.config, enabled: ['false'], active: ['false'] },
        });
      }
      const after = await admin<Keys>('GET', `/${realm}/keys`);
      const fresh = after.keys.find(
        (k) => k.algorithm === 'RS256' && k.use === 'SIG' && !signing.some((o) => o.kid === k.kid),
      );
      if (fresh?.certificate === undefined) throw new KeycloakAdminError(`Keycloak realm ${realm}: no new RS256 key`);
      return { kid: fresh.kid, certificate: fresh.certificate };
    },
  };
}

/**
 * What realm JSON cannot say without replacing Keycloak's built-in authentication flows: the `amr` claim
 * (OpenID Connect Core 1.0 section 2) is filled from the "Authentication Method Reference" of each completed
 * authenticator, which is authenticator configuration. The password form of the browser flow gets `pwd`
 * (RFC 8176 section 2). Idempotent: runs once per process, whichever process started Keycloak.
 */
async function configureRealms(kc: Keycloak): Promise<void> {
  const token = await kc.adminToken();
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${kc.url}/admin/realms${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new KeycloakAdminError(`Keycloak ${method} ${path}: ${res.status} ${await res.text()}`);
    const text = await res.text();
    return text === '' ? undefined : JSON.parse(text);
  };
  for (const realm of Object.keys(KEYCLOAK_CLIENTS)) {
    const executions = (await call('GET', `/${realm}/authentication/flows/browser/executions`)) as Array<{
      id: string;
      providerId?: string;
      authenticationConfig?: string;
    }>;
    const password = executions.find((e) => e.providerId === 'auth-username-password-form');
    if (!password) throw new KeycloakAdminError(`Keycloak realm ${realm}: no password form in the browser flow`);
    if (password.authenticationConfig !== undefined) continue;
    await call('POST', `/${realm}/authentication/executions/${password.id}/config`, {
      alias: `${realm}-amr-pwd`,
      config: { 'default.reference.value': 'pwd', 'default.reference.maxAge': '36000' },
    });
  }
}

/** Starts a Keycloak of this process's own (stopped on exit), whatever KEYCLOAK_URL says. */
export async function startKeycloak(): Promise<Keycloak> {
  const started = await startCounterpart('keycloak', START_TIMEOUT_S);
  const kc = keycloakAt(started.url, started.stop);
  try {
    await configureRealms(kc);
  } catch (error) {
    await started.stop();
    throw error;
  }
  return kc;
}

let shared: Promise<Keycloak> | undefined;

/** The run's Keycloak (KEYCLOAK_URL), else one started for this process; the same object for every caller. */
export function keycloak(): Promise<Keycloak> {
  shared ??= (async () => {
    const url = process.env.KEYCLOAK_URL;
    if (url === undefined || url === '') return startKeycloak();
    const kc = keycloakAt(url.replace(/\/+$/, ''), () => Promise.resolve());
    await configureRealms(kc);
    return kc;
  })();
  return shared;
}

/** Signs `username` (password KEYCLOAK_PASSWORD) in at Keycloak's own login page, once the browser is there. */
export async function signInAtKeycloak(
  page: import('playwright-core').Page,
  kc: Pick<Keycloak, 'url'>,
  username: string,
): Promise<void> {
  await page.waitForURL(`${kc.url}/**`);
  await page.locator('#username').fill(username);
  await page.locator('#password').fill(KEYCLOAK_PASSWORD);
  await page.locator('#kc-login').click();
}
