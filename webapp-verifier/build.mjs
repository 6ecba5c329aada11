// Builds ../handlers/webapp/static/proof-bundle.js (or the path given): one ES module,
// minified, no source map, no timestamps or absolute paths, so the same sources and the same
// locked packages give the same bytes (tests/webapp/test_proof_bundle.py checks it).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] || resolve(here, '../handlers/webapp/static/proof-bundle.js'));

await build({
  absWorkingDir: here,
  entryPoints: ['src/index.js'],
  outfile: out,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022'],
  minify: true,
  legalComments: 'eof',
  sourcemap: false,
  charset: 'utf8',
  logLevel: 'warning',
});
