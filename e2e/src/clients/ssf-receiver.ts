/**
 * An SSF receiver as a customer sets one up, through the public APIs only: a tenant admin gives a new
 * client-credentials client the `ssf.manage` permission on the built-in audience `urn:idp:ssf` (management API), the
 * client gets its token from oidc-core and discovers the tenant's transmitter (SSF 1.0 well-known path).
 */
import type { Harness } from '../harness';
import { basicAuth } from './browserless-login';

export interface SsfReceiver {
  clientId: string;
  token: string;
  /** The tenant's /.well-known/ssf-configuration (the transmitter's JSON: any member may be absent). */
  config: Partial<Record<string, string>>;
  /** Calls the management API as the tenant's admin. */
  manage: (method: string, path: string, body?: unknown) => Promise<Response>;
}

export async function clientCredentials(
  h: Harness,
  clientId: string,
  secret: string,
  resource: string,
  scope: string,
): Promise<string> {
  const res = await fetch(`${h.topology.baseUrl}/auth/${h.tenant.tenantId}/oidc/token`, {
    method: 'POST',
    headers: { authorization: basicAuth(clientId, secret), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || !body.access_token)
    throw new Error(`client credentials for ${clientId}: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

export async function registerSsfReceiver(h: Harness, name: string): Promise<SsfReceiver> {
  const t = h.tenant.tenantId;
  const base = h.topology.baseUrl;
  const admin = await clientCredentials(
    h,
    h.tenant.admin.clientId,
    h.tenant.admin.clientSecret,
    'urn:idp:management',
    'auth.roles.create auth.clients.create auth.roles.assign auth.nhe.update',
  );
  const manage = (method: string, path: string, body?: unknown) =>
    fetch(`${base}/auth/admin/tenants/${t}${path}`, {
      method,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const expectStatus = async (res: Response, status: number) => {
    if (res.status !== status) throw new Error(`management: ${res.status} ${await res.text()}`);
    return res;
  };
  const role = (await (
    await expectStatus(
      await manage('POST', '/roles', {
        name: 'ssf-receiver',
        resourceServer: 'urn:idp:ssf',
        permissions: ['ssf.manage'],
      }),
      201,
    )
  ).json()) as { id: string };
  const client = (await (
    await expectStatus(await manage('POST', '/clients', { name, grantTypes: ['client_credentials'] }), 201)
  ).json()) as { clientId: string; clientSecret: string };
  await expectStatus(await manage('PUT', `/clients/${client.clientId}/roles/${role.id}`), 204);
  const token = await clientCredentials(h, client.clientId, client.clientSecret, 'urn:idp:ssf', 'ssf.manage');
  const config = (await (await fetch(`${base}/.well-known/ssf-configuration/auth/${t}`)).json()) as Record<
    string,
    string
  >;
  return { clientId: client.clientId, token, config, manage };
}
