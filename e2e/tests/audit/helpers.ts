/** Shared helpers of the audit e2e tests: issuing NHE tokens through the whole stack, reading rows back. */
import { decodeJwt } from 'jose';
import { postNheExchange, type Harness } from '../../src/harness';

export { seededUserToken as userToken } from '../../src/harness';

/** One token exchange through the router, oidc-core and the sidecar: the issued token's jti, or the HTTP status. */
export async function exchange(h: Harness, subjectToken: string): Promise<{ jti: string } | { status: number }> {
  try {
    const res = await postNheExchange(h, subjectToken);
    const body = (await res.json()) as { access_token?: string };
    if (res.status !== 200 || !body.access_token) return { status: res.status };
    return { jti: String(decodeJwt(body.access_token).jti) };
  } catch {
    return { status: 0 };
  }
}

/** Issues tokens with `concurrency` parallel clients until `stop()` resolves true; returns the jtis issued. */
export async function issueWhile(
  h: Harness,
  subjectToken: string,
  keepGoing: () => boolean,
  concurrency = 4,
  issued: string[] = [],
): Promise<{ issued: string[]; refused: number[] }> {
  const refused: number[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (keepGoing()) {
        const r = await exchange(h, subjectToken);
        if ('jti' in r) issued.push(r.jti);
        else {
          refused.push(r.status);
          await new Promise((res) => setTimeout(res, 50));
        }
      }
    }),
  );
  return { issued, refused };
}

/** Waits until the tenant has at least `n` audit rows (or the time is up); returns the rows' jtis. */
export async function waitForRows(h: Harness, n: number, timeoutMs = 30_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await h.db.models.TokenAudit.find({ tenantId: h.tenant.tenantId }, { jti: 1 }).lean();
    if (rows.length >= n || Date.now() > deadline) return rows.map((r) => r.jti);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
