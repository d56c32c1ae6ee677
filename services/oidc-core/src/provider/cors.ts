/**
 * Which web origins may call the provider's endpoints for a client from a browser (node-oidc-provider's
 * `clientBasedCORS`: the token, revocation, introspection, UserInfo and registration endpoints, once the client is
 * known). Its default allows every origin. A browser-based client runs at the origin it is redirected back to, so
 * the allowed origins are those of its registered redirect URIs and post-logout redirect URIs; any other origin's
 * request is refused with `invalid_request` ("origin ... not allowed for client") and no CORS header. Native and
 * server-side clients send no Origin and are not affected.
 */
export function corsOriginAllowed(
  origin: string,
  client: { redirectUris?: readonly string[]; postLogoutRedirectUris?: readonly string[] },
): boolean {
  if (!origin || origin === 'null') return false;
  return [...(client.redirectUris ?? []), ...(client.postLogoutRedirectUris ?? [])].some(
    (uri) => originOf(uri) === origin,
  );
}

function originOf(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
