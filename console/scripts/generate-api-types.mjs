// Generates console/src/api/schema.d.ts from the management API's OpenAPI document with openapi-typescript.
//   node console/scripts/generate-api-types.mjs <openapi.json> [out.d.ts]   (no out: prints to stdout)
// The document comes from the routes themselves: services/management/src/openapi/console-api-types.test.ts builds
// it, runs this script and fails when the committed file differs (UPDATE_CONSOLE_API_TYPES=1 rewrites it).
import { readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';

const [input, output] = process.argv.slice(2);
if (!input) {
  process.stderr.write('usage: generate-api-types.mjs <openapi.json> [out.d.ts]\n');
  process.exit(2);
}
const document = JSON.parse(readFileSync(input, 'utf8'));
const ast = await openapiTS(document, { alphabetize: true });
const header =
  "// Generated from the management API's OpenAPI document by console/scripts/generate-api-types.mjs: do not edit.\n// services/management/src/openapi/console-api-types.test.ts fails when it is stale (UPDATE_CONSOLE_API_TYPES=1 regenerates it).\n\n";
const text = header + astToString(ast);
if (output) writeFileSync(output, text);
else process.stdout.write(text);
