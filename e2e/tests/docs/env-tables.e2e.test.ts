/**
 * Every environment variable a service's config schema reads is documented in that service's README (the env
 * table operators use), and the chart passes no variable the schema does not know (checked in tests/chart).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@idp/testing';
import { configSchema as auditRetention } from '../../../services/audit-retention/src/config';
import { configSchema as auditWriter } from '../../../services/audit-writer/src/config';
import { configSchema as management } from '../../../services/management/src/config';
import { configSchema as nheDelegation } from '../../../services/nhe-delegation/src/config';
import { configSchema as oidcCore } from '../../../services/oidc-core/src/config';
import { configSchema as signals } from '../../../services/signals/src/config';

const schemas = {
  'oidc-core': oidcCore,
  'nhe-delegation': nheDelegation,
  management,
  'audit-writer': auditWriter,
  'audit-retention': auditRetention,
  signals,
};

test.each(Object.entries(schemas))('%s: every config key is in the README env table', (service, schema) => {
  const readme = readFileSync(join(repoRoot(), 'services', service, 'README.md'), 'utf8');
  const keys = Object.keys((schema as unknown as { shape: Record<string, unknown> }).shape);
  expect(keys.length).toBeGreaterThan(2);
  const undocumented = keys.filter((k) => !new RegExp(`\\|\\s*\`?${k}\`?\\s*\\|`).test(readme));
  expect(undocumented).toEqual([]);
});
