// Hashes, the dice stream and the beacon's BLS check (docs/fairness.md: "Turn seeds and their
// commitments", "The beacon", "Dice"). The curve work is @noble/curves (audited, pure JS);
// every point check the document lists is made here explicitly, in its order.
import { bls12_381 as bls } from '@noble/curves/bls12-381.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';

export const DST = 'BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_';
/** The order r of G1 and G2. */
export const R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
const P = bls.fields.Fp.ORDER;

/** Bytes of a hex string, or null when it is not even-length hex. */
export function unhex(text) {
  if (typeof text !== 'string' || text.length % 2 || !/^[0-9a-fA-F]*$/.test(text)) return null;
  return hexToBytes(text.toLowerCase());
}

export function sha256Hex(bytes) {
  return bytesToHex(sha256(bytes));
}

export function sha256Text(text) {
  return sha256Hex(utf8ToBytes(text));
}

export { bytesToHex, utf8ToBytes };

/** The dice key: sha256(seed || randomness) with a beacon round, else the seed. */
export function diceKey(seed, randomnessHex) {
  if (randomnessHex === null || randomnessHex === undefined) return seed;
  const r = unhex(randomnessHex);
  if (r === null) throw new TypeError('the beacon randomness is not hex');
  const both = new Uint8Array(seed.length + r.length);
  both.set(seed);
  both.set(r, seed.length);
  return sha256(both);
}

const SPACE = 1n << 256n;

/** The faces of one turn: HMAC-SHA256(key, "m|t|c") read big-endian, rejection-sampled. */
export class DiceStream {
  constructor(key, matchId, turn) {
    this.key = key;
    this.prefix = `${matchId}|${turn}|`;
    this.counter = 0;
  }
  face(sides) {
    const n = BigInt(sides);
    if (n < 1n) throw new RangeError(`a die of ${sides} sides`);
    const limit = SPACE - (SPACE % n);
    for (;;) {
      const mac = hmac(sha256, this.key, utf8ToBytes(this.prefix + this.counter));
      this.counter += 1;
      const v = BigInt(`0x${bytesToHex(mac)}`);
      if (v < limit) return Number(v % n) + 1;
    }
  }
}

// ------------------------------------------------------------------------- the beacon

/** The round a lock at `lockedAt` waits for: the first published strictly after it. */
export function roundAfter(network, lockedAt) {
  if (lockedAt < network.genesis_time) return 1;
  return Math.floor((lockedAt - network.genesis_time) / network.period) + 2;
}

function roundMessage(round) {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(round));
  return sha256(bytes);
}

function bigOf(bytes) {
  return bytes.length ? BigInt(`0x${bytesToHex(bytes)}`) : 0n;
}

/** A compressed point's flags and x (zcash serialization), or null when not compressed. */
function flags(bytes) {
  const top = bytes[0];
  const x = new Uint8Array(bytes);
  x[0] &= 0x1f;
  return {
    compressed: (top & 0x80) !== 0,
    infinity: (top & 0x40) !== 0,
    sign: (top & 0x20) !== 0,
    x: bigOf(x),
  };
}

/** `[r]Q` is the point at infinity (computed as [r-1]Q + Q: noble's scalars stay below r). */
function inSubgroup(point) {
  return point.multiplyUnsafe(R - 1n).add(point).is0() && point.isTorsionFree();
}

/** The signature as a G1 point when it passes checks 1-4 of "The beacon", else null. */
export function checkedG1(signatureHex) {
  const bytes = unhex(signatureHex);
  if (bytes === null || bytes.length !== 48) return null; // 1: 48 bytes
  const f = flags(bytes);
  if (!f.compressed || f.infinity || f.x >= P) return null; // 1: flags, x < p
  let point;
  try {
    point = bls.G1.Point.fromBytes(bytes); // 2: on y^2 = x^3 + 4 (noble asserts validity)
    point.assertValidity();
  } catch {
    return null;
  }
  if (point.is0()) return null; // 3: not infinity
  // 1: canonical: compressing again gives the same bytes (the sign flag is y's).
  if (bytesToHex(point.toBytes(true)) !== bytesToHex(bytes)) return null;
  return inSubgroup(point) ? point : null; // 4: in G1
}

/** The network's public key as a G2 point when it passes the same checks, else null. */
export function checkedG2(keyHex) {
  const bytes = unhex(keyHex);
  if (bytes === null || bytes.length !== 96) return null;
  const f = flags(bytes.slice(0, 48));
  const x0 = bigOf(bytes.slice(48));
  if (!f.compressed || f.infinity || f.x >= P || x0 >= P) return null;
  let point;
  try {
    point = bls.G2.Point.fromBytes(bytes);
    point.assertValidity();
  } catch {
    return null;
  }
  if (point.is0()) return null;
  if (bytesToHex(point.toBytes(true)) !== bytesToHex(bytes)) return null;
  return inSubgroup(point) ? point : null;
}

const keys = new Map();
const verdicts = new Map(); // a pure function of its arguments: each checked once per page

/** Whether `signatureHex` is the network's signature of `round` (checks 1-6). */
export function verifyBeacon(publicKeyHex, round, signatureHex) {
  const key = `${publicKeyHex}|${round}|${signatureHex}`;
  if (!verdicts.has(key)) {
    if (verdicts.size > 4096) verdicts.clear();
    verdicts.set(key, pairingHolds(publicKeyHex, round, signatureHex));
  }
  return verdicts.get(key);
}

function pairingHolds(publicKeyHex, round, signatureHex) {
  if (!keys.has(publicKeyHex)) keys.set(publicKeyHex, checkedG2(publicKeyHex));
  const pk = keys.get(publicKeyHex);
  const sigma = checkedG1(signatureHex);
  if (pk === null || sigma === null) return false;
  const hashed = bls.G1.hashToCurve(roundMessage(round), { DST });
  // 6: e(sigma, g2) == e(H(m), pk)
  const left = bls.pairing(sigma, bls.G2.Point.BASE);
  const right = bls.pairing(hashed, pk);
  return bls.fields.Fp12.eql(left, right);
}
