/**
 * SimpleSAMLphp 1.19 (Debian's package) as a second upstream SAML 2.0 IdP, under PHP's built-in web server with the
 * configuration of e2e/fixtures/simplesamlphp/ (users sam and tess, password Passw0rd!, exampleauth:UserPass).
 * scripts/test.sh starts one for the run and exports SIMPLESAMLPHP_URL and SIMPLESAMLPHP_STATE_DIR; without them,
 * `simplesamlphp()` starts one for this process and stops it when the process exits.
 *
 * The broker is the SP `urn:idp-test:sp:simplesaml`. SimpleSAMLphp 1.19 answers only at an AssertionConsumerService
 * listed in its metadata of the SP (an AuthnRequest naming another one gets the listed default), and the broker's ACS
 * moves with each test's port and tenant: a test registers its ACS and SLO URLs with `registerSp` before it signs in.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCounterpart } from './counterpart-process';

/** The SP entity id the IdP knows the broker by. */
export const SIMPLESAMLPHP_SP_ENTITY_ID = 'urn:idp-test:sp:simplesaml';
export const SIMPLESAMLPHP_PASSWORD = 'Passw0rd!';
/** The users of the `example-userpass` authsource and the attributes they release. */
export const SIMPLESAMLPHP_USERS = {
  sam: {
    uid: ['sam'],
    email: ['sam@uni.example'],
    eduPersonAffiliation: ['member', 'staff'],
    displayName: ['Sam Student'],
  },
  tess: {
    uid: ['tess'],
    email: ['tess@uni.example'],
    eduPersonAffiliation: ['member', 'faculty'],
    displayName: ['Tess Teacher'],
  },
} as const;

const START_TIMEOUT_S = 30;

export interface SimpleSamlPhp {
  /** Base URL, e.g. http://127.0.0.1:23456 (SimpleSAMLphp lives under /simplesaml/). */
  url: string;
  /** The IdP's entity id, which is also its metadata URL. */
  entityId: string;
  metadataUrl: string;
  /** SingleSignOnService (HTTP-Redirect binding). */
  ssoUrl: string;
  /** SingleLogoutService (HTTP-Redirect binding). */
  sloUrl: string;
  /**
   * Lists the broker's ACS (HTTP-POST) and SLO (HTTP-Redirect) URLs in the IdP's metadata of the SP. The newest
   * registration is the default ACS and the SLO endpoint the IdP sends LogoutRequests to. Returns an unregister.
   */
  registerSp: (endpoints: { acs: string; slo?: string }) => () => void;
  /** Stops it if this process started it (a no-op for the run's shared instance). */
  stop: () => Promise<void>;
}

function simpleSamlAt(url: string, stateDir: string, stop: () => Promise<void>): SimpleSamlPhp {
  const metadataUrl = `${url}/simplesaml/saml2/idp/metadata.php`;
  return {
    url,
    entityId: metadataUrl,
    metadataUrl,
    ssoUrl: `${url}/simplesaml/saml2/idp/SSOService.php`,
    sloUrl: `${url}/simplesaml/saml2/idp/SingleLogoutService.php`,
    registerSp: (endpoints) => {
      const dir = join(stateDir, 'sp.d');
      mkdirSync(dir, { recursive: true });
      // The name orders registrations made within one second (file times have that resolution in PHP).
      const file = join(dir, `${String(Date.now()).padStart(15, '0')}-${randomBytes(4).toString('hex')}.json`);
      writeFileSync(file, JSON.stringify(endpoints));
      return () => rmSync(file, { force: true });
    },
    stop,
  };
}

/** Starts a SimpleSAMLphp of this process's own (stopped on exit), whatever SIMPLESAMLPHP_URL says. */
export async function startSimpleSamlPhp(): Promise<SimpleSamlPhp> {
  const started = await startCounterpart('simplesamlphp', START_TIMEOUT_S);
  return simpleSamlAt(started.url, join(started.dir, 'ssp'), started.stop);
}

let shared: Promise<SimpleSamlPhp> | undefined;

/** The run's SimpleSAMLphp (SIMPLESAMLPHP_URL), else one started for this process; the same for every caller. */
export function simplesamlphp(): Promise<SimpleSamlPhp> {
  shared ??= (() => {
    const url = process.env.SIMPLESAMLPHP_URL;
    const stateDir = process.env.SIMPLESAMLPHP_STATE_DIR;
    if (url === undefined || url === '') return startSimpleSamlPhp();
    if (stateDir === undefined || stateDir === '')
      return Promise.reject(
        new Error('SIMPLESAMLPHP_URL is set without SIMPLESAMLPHP_STATE_DIR (see scripts/counterparts.sh)'),
      );
    return Promise.resolve(simpleSamlAt(url.replace(/\/+$/, ''), stateDir, () => Promise.resolve()));
  })();
  return shared;
}
