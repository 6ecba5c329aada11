// The verifier's pure parts against values Python gives (`python -c` over engine/, written
// down here): canonical JSON, float printing, the dice stream, the fingerprint, the beacon.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DiceStream, checkedG1, roundAfter, sha256Text } from '../src/crypto.js';
import { QUICKNET } from '../src/verify.js';
import { PyFloat, canonical, floatRepr, parse } from '../src/pyjson.js';

test('floats print as Python repr()', () => {
  const values = [1.0, 0.1, 1e16, 1e-5, 123456789.125, -0.0, 1e22, 2.5e-7, 1700000000.5, 1e15, 0.0001];
  const python = ['1.0', '0.1', '1e+16', '1e-05', '123456789.125', '-0.0', '1e+22', '2.5e-07', '1700000000.5', '1000000000000000.0', '0.0001'];
  assert.deepEqual(values.map(floatRepr), python);
});

test('canonical JSON is json.dumps(sort_keys, compact, ensure_ascii=False)', () => {
  const doc = parse('{"b":[1,2.0,"é\\n\\"\\u0001"],"a":{"z":null,"é":true,"\\ud83d\\ude00":1,"\\uffff":2}}');
  assert.ok(doc.b[1] instanceof PyFloat);
  assert.equal(canonical(doc), '{"a":{"z":null,"é":true,"￿":2,"😀":1},"b":[1,2.0,"é\\n\\"\\u0001"]}');
  assert.equal(canonical(parse('12345678901234567890123')), '12345678901234567890123');
});

test('the dice stream: HMAC-SHA256 counter, rejection sampling', () => {
  const key = Uint8Array.from({ length: 32 }, (_, i) => i);
  const dice = new DiceStream(key, 'm1', 3);
  const d6 = Array.from({ length: 8 }, () => dice.face(6));
  const d100 = Array.from({ length: 3 }, () => dice.face(100));
  assert.deepEqual(d6, [1, 1, 1, 2, 6, 2, 5, 3]);
  assert.deepEqual(d100, [62, 46, 87]);
  assert.equal(dice.counter, 11);
});

test('an order fingerprint', () => {
  const doc = { match: 'abc', turn: 2, pid: 'p1', order: { move: -1, aim: [5, 5] }, salt: '00112233aabbccdd' };
  assert.equal(sha256Text(canonical(doc)), '36ccfd9a971617cd97bc1050f2409f0b859e7d1d7768bd3cc3e4d77eb24d8d2f');
});

test('the round after a lock is the first published strictly after it', () => {
  const g = QUICKNET.genesis_time;
  assert.equal(roundAfter(QUICKNET, g), 2);
  assert.equal(roundAfter(QUICKNET, g + 2.9), 2);
  assert.equal(roundAfter(QUICKNET, g + 3), 3);
  assert.equal(roundAfter(QUICKNET, g - 10), 1);
});

test('the point at infinity and non-compressed encodings are refused', () => {
  const infinity = `c0${'00'.repeat(47)}`;
  assert.equal(checkedG1(infinity), null);
  assert.equal(checkedG1(`e0${'00'.repeat(47)}`), null);
  assert.equal(checkedG1('zz'.repeat(48)), null);
  assert.equal(checkedG1('00'.repeat(47)), null);
});
