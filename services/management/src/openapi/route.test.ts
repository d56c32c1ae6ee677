import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { comparePaths } from './route';

describe('comparePaths (route matching order)', () => {
  it('puts literal segments before params and params before wildcards, at the first differing position', () => {
    const paths = [
      '/tenants/:tenantId/non-human-entities/:nheId',
      '/tenants/:tenantId/non-human-entities/token-audit/:auditId/*rest',
      '/tenants/:tenantId/non-human-entities/count',
      '/tenants/:tenantId/non-human-entities/token-audit/:auditId',
      '/tenants/:tenantId/non-human-entities/token-audit',
      '/tenants/:tenantId/non-human-entities/:nheId/delegation-policies',
      '/tenants',
    ];
    expect([...paths].sort(comparePaths)).toEqual([
      '/tenants',
      '/tenants/:tenantId/non-human-entities/count',
      '/tenants/:tenantId/non-human-entities/token-audit',
      '/tenants/:tenantId/non-human-entities/token-audit/:auditId',
      '/tenants/:tenantId/non-human-entities/token-audit/:auditId/*rest',
      '/tenants/:tenantId/non-human-entities/:nheId',
      '/tenants/:tenantId/non-human-entities/:nheId/delegation-policies',
    ]);
  });
});

describe('token audit is append-only from this service', () => {
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
    });

  it('no source file of the management service updates or deletes audit rows', () => {
    const src = join(__dirname, '..');
    expect(files(src).length).toBeGreaterThan(10);
    const offenders = files(src).filter((f) =>
      /TokenAudit\s*\.\s*(deleteOne|deleteMany|updateOne|updateMany|findOneAndUpdate|findOneAndDelete|findOneAndReplace|replaceOne|bulkWrite|findByIdAndUpdate|findByIdAndDelete)|nhe_token_audit/.test(
        readFileSync(f, 'utf8'),
      ),
    );
    expect(offenders).toEqual([]);
  });
});
