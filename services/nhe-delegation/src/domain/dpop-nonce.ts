import { createHmac, hkdfSync } from 'node:crypto';
import { constantTimeEqual } from '@idp/tokens';

/**
 * Stateless DPoP nonces (RFC 9449 section 8): `<slot>.<mac>` where slot = floor(now / windowSeconds) and
 * mac = HMAC-SHA256(key, tenantId.slot). Every replica derives the same key from the shared sidecar secret, so a
 * nonce issued by one pod is accepted by every other; a nonce is valid for the current and the previous
 * `acceptSlots - 1` windows (default: 2-3 minutes).
 */
export interface DpopNonces {
  issue(tenantId: number, now?: number): string;
  isValid(tenantId: number, nonce: string, now?: number): boolean;
}

export function dpopNonces(secret: string, windowSeconds = 60, acceptSlots = 3): DpopNonces {
  const key = Buffer.from(hkdfSync('sha256', secret, 'nhe-delegation', 'dpop-nonce-v1', 32));
  const mac = (tenantId: number, slot: number) =>
    createHmac('sha256', key).update(`${tenantId}.${slot}`).digest('base64url');
  const slotOf = (now: number) => Math.floor(now / windowSeconds);
  return {
    issue(tenantId, now = Math.floor(Date.now() / 1000)) {
      const slot = slotOf(now);
      return `${slot}.${mac(tenantId, slot)}`;
    },
    isValid(tenantId, nonce, now = Math.floor(Date.now() / 1000)) {
      const m = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(nonce);
      if (!m) return false;
      const slot = Number(m[1]);
      const current = slotOf(now);
      if (slot > current || current - slot >= acceptSlots) return false;
      return constantTimeEqual(m[2]!, mac(tenantId, slot));
    },
  };
}
