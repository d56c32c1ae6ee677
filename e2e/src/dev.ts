/**
 * `npm start`: the whole system on this machine. Starts the MongoDB-compatible store and NATS (unless
 * MONGODB_URI / NATS_URL are set), every service as its own process with its container environment, the dev
 * router on PUBLIC_PORT (default 8080), creates a demo tenant, and prints credentials and curl commands.
 * Ctrl-C stops everything.
 */
import { connectDatabase } from '@idp/db';
import { createLogger } from '@idp/logger';
import { seedDelegationTenant } from '@idp/testing';
import { KeyEncryptionKey, KeyStore } from '@idp/tokens';
import { startLocalInfra } from './local-infra';
import { startTopology } from './topology';

const DEMO_TENANT_ID = 1001;

async function main(): Promise<void> {
  const infra = await startLocalInfra(`idp_demo_${Date.now()}`);
  const mongoUri = infra.mongoUri;
  const natsUrl = infra.natsUrl;
  const topology = await startTopology({
    mongoUri,
    natsUrl,
    routerPort: Number(process.env.PUBLIC_PORT ?? 8080),
    logLevel: process.env.LOG_LEVEL ?? 'warn',
    stdio: 'inherit',
  });
  const stopAll = async () => {
    await topology.stop();
    await infra.stop();
  };
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      if (stopping) return;
      stopping = true;
      process.stdout.write('\nstopping every process...\n');
      void stopAll().then(() => process.exit(0));
    });
  }

  const db = await connectDatabase(mongoUri, createLogger({ service: 'dev', level: 'silent' }));
  const keyStore = new KeyStore(db.models, new KeyEncryptionKey(topology.secrets.keyEncryptionKey));
  const demo = await seedDelegationTenant(db.models, keyStore, {
    tenantId: DEMO_TENANT_ID,
    tenantName: 'demo',
    clientSecretPepper: topology.secrets.clientSecretPepper,
  });
  await db.close();

  const b = topology.baseUrl;
  const t = demo.tenantId;
  const lines = [
    '',
    'Identity provider running (every service is its own process; Ctrl-C stops all).',
    '',
    `  Issuer (demo tenant)      ${b}/auth/${t}`,
    `  Discovery                 ${b}/auth/${t}/.well-known/openid-configuration`,
    `  Management API            ${b}/auth/admin`,
    `  System admin client       ${topology.secrets.bootstrapAdminClientId} / ${topology.secrets.bootstrapAdminClientSecret}`,
    `  Demo app client           ${demo.client.clientId} / ${demo.client.clientSecret}`,
    `  Demo tenant admin client  ${demo.admin.clientId} / ${demo.admin.clientSecret}`,
    `  Demo user                 ${demo.user.username} / ${demo.user.password}`,
    `  Resource server           ${demo.resource}`,
    `  NHE                       ${demo.nhe.identifier} (llm-assistive)`,
    '',
    '1) Sign the user in (authorization code + PKCE, done with curl) and keep the access token:',
    '',
    `  USER_TOKEN=$(scripts/demo/user-token.sh ${b} ${t} ${demo.client.clientId} '${demo.client.clientSecret}' ${demo.client.redirectUri} ${demo.user.username} '${demo.user.password}' ${demo.resource})`,
    '',
    '2) Exchange it for a 5-minute NHE token for the agent:',
    '',
    `  curl -s -u ${demo.client.clientId}:'${demo.client.clientSecret}' ${b}/auth/${t}/oidc/token \\`,
    `    -d grant_type=urn:ietf:params:oauth:grant-type:token-exchange \\`,
    `    -d subject_token="$USER_TOKEN" -d subject_token_type=urn:ietf:params:oauth:token-type:access_token \\`,
    `    -d actor_token=${demo.nhe.identifier} -d actor_token_type=urn:vendor:token-type:nhe-id \\`,
    `    -d resource=${demo.resource} -d scope=orders:read`,
    '',
    '3) Read the audit row back through the management API:',
    '',
    `  ADMIN_TOKEN=$(curl -s -u ${demo.admin.clientId}:'${demo.admin.clientSecret}' ${b}/auth/${t}/oidc/token -d grant_type=client_credentials -d resource=urn:idp:management | python3 -c 'import sys,json;print(json.load(sys.stdin)["access_token"])')`,
    `  curl -s -H "Authorization: Bearer $ADMIN_TOKEN" ${b}/auth/admin/tenants/${t}/non-human-entities/token-audit`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`start failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
