// `node cli.mjs [--module PATH] DOSSIER.json...`: each dossier's verdict as one JSON line
// (tests/webapp/test_proof_bundle.py runs it over the checked-in bundle). Exit status: 0 when
// every dossier verifies, 1 otherwise, 2 when one is not a dossier.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
let module = './src/index.js';
if (args[0] === '--module') {
  module = pathToFileURL(resolve(args[1])).href;
  args.splice(0, 2);
}
const { verifyText } = await import(module);
let status = 0;
for (const path of args) {
  try {
    const verdict = verifyText(readFileSync(path, 'utf8'));
    if (!verdict.ok) status = Math.max(status, 1);
    console.log(JSON.stringify({ path, ...verdict }));
  } catch (e) {
    status = 2;
    console.log(JSON.stringify({ path, error: e.message }));
  }
}
process.exit(status);
