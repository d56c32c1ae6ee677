// @ts-check
/**
 * Keycloak alone, measured as bench/peers/run.js measures it (the same options; `--only keycloak`): client
 * credentials and standard token exchange v2 at 1 and 32 connections, Keycloak pinned to one CPU and the load
 * generator to another, CPU-ms per request from /proc over all the JVM's threads.
 *
 *   bash scripts/tools.sh keycloak && node bench/peers/keycloak/run.js [--duration 10] [--warmup 30] [--connections 1,32]
 */
const { run } = require('../../reference-server');
const { runPeers } = require('../run');

run(() => runPeers({ only: 'keycloak' }));
