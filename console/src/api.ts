/**
 * The management API client: openapi-fetch typed by src/api/schema.d.ts, which openapi-typescript generates from
 * the served OpenAPI document (a unit test fails when it is stale). Every call carries the session's token.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './api/schema';
import { apiBase, type Session } from './auth';

export type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];
export type Api = ReturnType<typeof createClient<paths>>;

/** An RFC 9457 problem the API answered (or a network failure dressed as one). */
export class ApiProblem extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title);
  }
}

export function apiClient(session: Session, onUnauthorized: () => void): Api {
  const client = createClient<paths>({ baseUrl: apiBase() });
  const auth: Middleware = {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${session.accessToken}`);
      return request;
    },
    onResponse({ response }) {
      if (response.status === 401) onUnauthorized();
      return response;
    },
  };
  client.use(auth);
  return client;
}

/** The data of a successful answer, or an ApiProblem. */
export async function call<T>(p: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let r: { data?: T; error?: unknown; response: Response };
  try {
    r = await p;
  } catch (err) {
    throw new ApiProblem({
      type: 'https://idp.dev/problems/service-unavailable',
      title: 'The management API could not be reached',
      status: 0,
      detail: (err as Error).message,
    });
  }
  if (r.response.ok) return r.data as T;
  const e = r.error as Partial<Problem> | undefined;
  throw new ApiProblem({
    type: e?.type ?? 'https://idp.dev/problems/internal-error',
    title: e?.title ?? r.response.statusText,
    status: r.response.status,
    ...(e?.detail ? { detail: e.detail } : {}),
    ...(e?.invalid_params ? { invalid_params: e.invalid_params } : {}),
    ...(e?.required_scope ? { required_scope: e.required_scope } : {}),
    ...(e?.limit ? { limit: e.limit } : {}),
  });
}

/** path params: the API takes the tenant id as a string. */
export const tp = (tenantId: number) => ({ tenantId: String(tenantId) });
