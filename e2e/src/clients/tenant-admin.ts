/**
 * A tenant administrator's calls to the management API (`/auth/admin/tenants/{tenantId}...`): the status and the JSON
 * answer (undefined when empty). T is what the caller reads of the answer.
 */
export async function tenantAdminCall<T = Record<string, unknown>>(
  o: { baseUrl: string; tenantId: number; token: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${o.baseUrl}/auth/admin/tenants/${o.tenantId}${path}`, {
    method,
    headers: { authorization: `Bearer ${o.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}
