/**
 * What `npm start` prints once everything runs: the addresses, the demo credentials, how to trust the https
 * certificate when the router serves one, and the demo steps as shell commands. The steps are data so the e2e
 * tests run exactly the commands printed (tests/flows/https-local.e2e.test.ts).
 */
import type { SeededTenant } from '@idp/testing';
import { CA_COMMON_NAME, type RouterCertificate } from './dev-tls';

export interface BannerInput {
  baseUrl: string;
  /** Where the router listens (scheme://address:port), when that is not the public URL itself. */
  listen: string;
  demo: SeededTenant;
  admin: { clientId: string; clientSecret: string };
  /** The certificate the router serves (absent: plain http). */
  certificate?: RouterCertificate;
  /** The router serves http behind something else that terminates TLS for the public URL (ROUTER_TLS=off). */
  tlsUpstream?: boolean;
  /** The Node.js version the services run on (process.versions.node); below 22 the banner explains oidc-provider's warning. */
  nodeVersion?: string;
  /** The admin console's sign-in: a person in the system tenant holding the system-admin role (dev.ts makes one). */
  console?: { systemTenantId: number; username: string; password: string };
  /** The MCP demo (demo/mcp-demo.ts): the sample servers' table lines, and its steps after the others. */
  mcp?: { lines: string[]; steps: DemoStep[] };
}

/** One line on what a first run prints that is expected, so a newcomer does not take it for a fault: nothing on Node 22 or later. */
export function runtimeNote(nodeVersion: string | undefined): string[] {
  const major = Number(nodeVersion?.split('.')[0]);
  if (!Number.isFinite(major) || major >= 22) return [];
  return [
    `  Note                      Node.js ${nodeVersion}: "oidc-provider WARNING: Unsupported runtime" above is expected (it supports Node 22 LTS, which the images run; scripts/with-node.sh -- npm start runs on it); everything works here`,
  ];
}

export interface DemoStep {
  title: string;
  /** One bash command (continuation lines included) that the banner prints as it is. */
  command: string;
}

/** Single-quotes a value for bash. */
export const sh = (value: string): string =>
  /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;

/** The demo steps; over https with a generated CA every curl trusts that CA (--cacert, CURL_CA_BUNDLE for the script). */
export function demoSteps(i: BannerInput): DemoStep[] {
  const b = i.baseUrl;
  const t = i.demo.tenantId;
  const { client, admin } = i.demo;
  const ca = i.certificate?.generated ? i.certificate.trustFile : undefined;
  const curl = ca ? `curl -s --cacert ${sh(ca)}` : 'curl -s';
  const scriptEnv = ca ? `CURL_CA_BUNDLE=${sh(ca)} ` : '';
  return [
    {
      title: 'Sign the user in (authorization code + PKCE, done with curl) and keep the access token:',
      command: `USER_TOKEN=$(${scriptEnv}scripts/demo/user-token.sh ${b} ${t} ${client.clientId} ${sh(client.clientSecret)} ${client.redirectUri} ${i.demo.user.username} ${sh(i.demo.user.password)} ${i.demo.resource})`,
    },
    {
      title: 'Exchange it for a 5-minute NHE token for the agent:',
      command: [
        `${curl} -u ${client.clientId}:${sh(client.clientSecret)} ${b}/auth/${t}/oidc/token \\`,
        `  -d grant_type=urn:ietf:params:oauth:grant-type:token-exchange \\`,
        `  -d subject_token="$USER_TOKEN" -d subject_token_type=urn:ietf:params:oauth:token-type:access_token \\`,
        `  -d actor_token=${i.demo.nhe.identifier} -d actor_token_type=urn:vendor:token-type:nhe-id \\`,
        `  -d resource=${i.demo.resource} -d scope=orders:read`,
      ].join('\n'),
    },
    {
      title:
        'Read the audit row back through the management API (audit-writer stores it asynchronously, within a second or so: if "items" is empty, run the command again):',
      command: [
        `ADMIN_TOKEN=$(${curl} -u ${admin.clientId}:${sh(admin.clientSecret)} ${b}/auth/${t}/oidc/token -d grant_type=client_credentials -d resource=urn:idp:management | python3 -c 'import sys,json;print(json.load(sys.stdin)["access_token"])')`,
        `${curl} -H "Authorization: Bearer $ADMIN_TOKEN" ${b}/auth/admin/tenants/${t}/non-human-entities/token-audit`,
      ].join('\n'),
    },
    ...(i.mcp?.steps ?? []),
  ];
}

/** How to trust the generated CA (or what was given), for the clients a developer points at the system. */
function tlsLines(i: BannerInput): string[] {
  const c = i.certificate;
  if (!c) {
    return i.tlsUpstream
      ? ['', `TLS is terminated in front of the router (ROUTER_TLS=off); the router itself serves ${i.listen}.`]
      : [];
  }
  if (!c.generated) {
    return [
      '',
      `The router serves https with the given certificate ${c.certFile}`,
      `  (${c.trustSubject}, SHA-256 ${c.trustFingerprint256}); clients must trust its issuer.`,
    ];
  }
  const ca = sh(c.trustFile);
  return [
    '',
    `The router serves https with a certificate issued at start-up for localhost, 127.0.0.1 and ::1 by a local CA${c.newCa ? ' made by this run' : ''}:`,
    '',
    `  CA certificate            ${c.trustFile}`,
    `  CA SHA-256 fingerprint    ${c.trustFingerprint256}`,
    '',
    `Trust that CA once (it is kept between runs; its private key never leaves ${c.trustFile.replace(/[^/\\]*$/, '')}):`,
    '',
    `  Node.js clients           NODE_EXTRA_CA_CERTS=${ca} node your-app.js`,
    `  curl                      curl --cacert ${ca} ...   (the commands below pass it)`,
    `  Python (requests, httpx)  REQUESTS_CA_BUNDLE=${ca} SSL_CERT_FILE=${ca} python3 your-app.py`,
    `  Chrome/Chromium (Linux)   certutil -d sql:$HOME/.pki/nssdb -A -t C,, -n ${sh(CA_COMMON_NAME)} -i ${ca}`,
    `  Firefox                   Settings > Privacy & Security > Certificates > View Certificates > Authorities > Import`,
    `  macOS (system)            sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain ${ca}`,
    `  Windows (current user)    certutil -user -addstore Root ${ca}`,
    `  Linux (system)            sudo cp ${ca} /usr/local/share/ca-certificates/idp-dev-ca.crt && sudo update-ca-certificates`,
    '',
    'Check the fingerprint before trusting it: openssl x509 -noout -fingerprint -sha256 -in ' + ca,
  ];
}

/** The demo application's RP-Initiated Logout request: the confirmation page, then back to the app with its state. */
export function signOutUrl(i: BannerInput): string {
  const q = new URLSearchParams({
    client_id: i.demo.client.clientId,
    post_logout_redirect_uri: i.demo.client.postLogoutRedirectUri ?? '',
    state: 'signed-out-demo',
  });
  return `${i.baseUrl}/auth/${i.demo.tenantId}/logout/confirm?${q}`;
}

export function banner(i: BannerInput): string {
  const b = i.baseUrl;
  const t = i.demo.tenantId;
  const lines = [
    '',
    'Identity provider running (every service is its own process; Ctrl-C stops all).',
    '',
    `  Issuer (demo tenant)      ${b}/auth/${t}`,
    `  Discovery                 ${b}/auth/${t}/.well-known/openid-configuration`,
    `  Management API            ${b}/auth/admin`,
    ...(i.console
      ? [
          `  Admin console             ${b}/auth/admin/console/  (tenant ${i.console.systemTenantId}, ${i.console.username} / ${i.console.password})`,
        ]
      : []),
    `  Shared Signals (SSF)      ${b}/.well-known/ssf-configuration/auth/${t}`,
    ...(i.mcp?.lines ?? [
      `  Resource-server SDK       libs/resource-server (sample API: e2e/orders-api)`,
      `  MCP sample server         e2e/mcp-server (MCP SDK server on the SDK: MCP_ISSUER=${b}/auth/${t} MCP_RESOURCE=<its /mcp URL>; e2e/tests/mcp)`,
    ]),
    `  Your agents (user ledger) ${b}/auth/${t}/account/agents   (sign in as the demo user)`,
    ...(i.demo.client.postLogoutRedirectUri ? [`  Sign out (demo app)       ${signOutUrl(i)}`] : []),
    ...(i.listen !== b ? [`  Dev router listens on     ${i.listen}`] : []),
    `  System admin client       ${i.admin.clientId} / ${i.admin.clientSecret}`,
    `  Demo app client           ${i.demo.client.clientId} / ${i.demo.client.clientSecret}`,
    `  Demo tenant admin client  ${i.demo.admin.clientId} / ${i.demo.admin.clientSecret}`,
    `  Demo user                 ${i.demo.user.username} / ${i.demo.user.password}`,
    `  Resource server           ${i.demo.resource}`,
    `  NHE                       ${i.demo.nhe.identifier} (llm-assistive)`,
    ...runtimeNote(i.nodeVersion),
    ...tlsLines(i),
  ];
  demoSteps(i).forEach((step, n) => {
    lines.push('', `${n + 1}) ${step.title}`, '', ...step.command.split('\n').map((l) => `  ${l}`));
  });
  lines.push('');
  return lines.join('\n') + '\n';
}
