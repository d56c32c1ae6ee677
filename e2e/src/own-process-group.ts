/**
 * Processes `npm start` runs outside the terminal's process group. A terminal's Ctrl-C sends SIGINT to its whole
 * foreground group at once; `npm start` instead stops what it started in dependency order (the sample APIs, then
 * the services, then the store and NATS), which it can only do if nothing else signalled them first.
 */
import type { SpawnOptions } from 'node:child_process';

export { killOnExit } from '@idp/testing';

/** Spawn options that put the child in a process group of its own (or leave it in ours). */
export const groupOption = (own: boolean | undefined): Pick<SpawnOptions, 'detached'> =>
  own ? { detached: true } : {};
