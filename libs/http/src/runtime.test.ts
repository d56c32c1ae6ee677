import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModuleKind, transpileModule } from 'typescript';

/**
 * Runs, in a fresh Node process with V8's pretenuring statistics traced, a loop whose object literals survive young
 * collections (what makes V8 consider pretenuring their allocation site), after calling disablePretenuring() or not.
 * Returns how many allocation-site decisions V8 printed. setFlagsFromString ignores a flag the runtime does not know,
 * so this is what shows the flag still exists and still works on the Node in use.
 */
function pretenuringDecisions(disable: boolean): number {
  const source = transpileModule(readFileSync(join(__dirname, 'runtime.ts'), 'utf8'), {
    compilerOptions: { module: ModuleKind.CommonJS },
  }).outputText;
  const program = `
    const exports = {};
    ${source}
    if (${disable}) exports.disablePretenuring();
    function make(i) { return { id: i, name: 'n' + i, tags: [i, i + 1], nested: { x: i } }; }
    const keep = [];
    for (let i = 0; i < 1e6; i++) { keep.push(make(i)); if (keep.length > 200000) keep.length = 0; }
  `;
  const out = execFileSync(process.execPath, ['--trace-pretenuring-statistics', '-e', program], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return out.split('\n').filter((line) => line.includes('pretenuring: AllocationSite')).length;
}

describe('disablePretenuring', () => {
  it('stops V8 from making allocation-site pretenuring decisions (and V8 makes them without it)', () => {
    expect(pretenuringDecisions(false)).toBeGreaterThan(0);
    expect(pretenuringDecisions(true)).toBe(0);
  });
});
