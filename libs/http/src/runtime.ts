import { setFlagsFromString } from 'node:v8';

/**
 * Turns off V8's allocation-site pretenuring in a process that serves requests; call it first thing in main().
 *
 * V8 allocates an object literal straight into the old generation once most objects from that site survived a
 * few young collections. Under load every request is in flight across a young collection for a short while, so
 * V8 12 (Node 22) decides to pretenure sites that build per-request objects. Those objects then sit in old space,
 * keep the young objects they point at alive until a full mark-compact, and turn every request's garbage into
 * old-space garbage: a mark-compact about every 1.2 s that stalls every request in flight. With pretenuring off,
 * oidc-core on Node 22 goes from 9 mark-compacts to 0-1 in 12 s at 32 connections, and its p99 from 21-26 ms to
 * 8-17 ms (bench/README.md, "Node 22 and allocation-site pretenuring"). Long-lived objects still reach old space,
 * by surviving two young collections.
 */
export function disablePretenuring(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
