// The one summary of a test run made of several jest runs (scripts/test.sh): each run's counts, every failed test
// by name, and the exit status (1 when any run failed or left no result).
// Usage: node scripts/jest-summary.mjs <jest --json output file>...
import { readFileSync } from 'node:fs';

let failed = false;
const totals = { suites: 0, suitesFailed: 0, tests: 0, testsFailed: 0 };
const failures = [];
for (const file of process.argv.slice(2)) {
  let run;
  try {
    run = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    failed = true;
    console.log(`test summary: ${file}: no result (${err.code ?? err.message}): that jest run did not finish`);
    continue;
  }
  const suitesFailed = run.numFailedTestSuites + (run.numRuntimeErrorTestSuites ?? 0);
  totals.suites += run.numTotalTestSuites;
  totals.suitesFailed += suitesFailed;
  totals.tests += run.numTotalTests;
  totals.testsFailed += run.numFailedTests;
  if (!run.success) failed = true;
  console.log(
    `test summary: ${file}: ${run.numTotalTestSuites - suitesFailed} of ${run.numTotalTestSuites} files and ` +
      `${run.numPassedTests} of ${run.numTotalTests} tests passed`,
  );
  for (const suite of run.testResults ?? []) {
    const name = suite.name.replace(`${process.cwd()}/`, '');
    const tests = (suite.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const t of tests) failures.push(`${name} > ${t.fullName}`);
    if (suite.status === 'failed' && tests.length === 0) failures.push(`${name} (the file failed to run)`);
  }
}
console.log(
  `test summary: all runs: ${totals.suites - totals.suitesFailed} of ${totals.suites} files and ` +
    `${totals.tests - totals.testsFailed} of ${totals.tests} tests passed`,
);
for (const f of failures) console.log(`test summary: FAILED ${f}`);
console.log(`test summary: ${failed ? 'FAILED' : 'PASSED'}`);
process.exit(failed ? 1 : 0);
