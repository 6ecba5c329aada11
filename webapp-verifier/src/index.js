// The proof page's verifier (handlers/webapp/static/proof-bundle.js is this, bundled).
export { verifyBeacon } from './crypto.js';
export { NotADossierError, QUICKNET, RULESETS, verify, verifyText } from './verify.js';
