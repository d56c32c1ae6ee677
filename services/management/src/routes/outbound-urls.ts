/**
 * URLs a tenant names for this service to reach or to trust (upstream providers, trusted issuers' key sets, ID-JAG
 * audiences): https, or http to a loopback host (local development; whether loopback is reachable at all is the
 * platform's outbound policy, never the tenant's), never with user info or a fragment.
 */
const LOOPBACK = /^(127(\.\d{1,3}){3}|\[::1\]|localhost)$/;

export const TENANT_URL_RULE =
  'must be an absolute https URL without user info or fragment (http only for a loopback host)';

export function isTenantUrl(value: string, o: { query?: boolean } = {}): boolean {
  try {
    const u = new URL(value);
    if (u.username || u.password || u.hash || value.includes('#')) return false;
    if (o.query === false && (u.search || value.includes('?'))) return false;
    return u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK.test(u.hostname));
  } catch {
    return false;
  }
}
