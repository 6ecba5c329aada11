// JSON exactly as Python's `json` module reads and writes it (docs/fairness.md, "Order
// fingerprints"): `json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`.
// JavaScript's JSON loses what Python keeps: 1.0 and 1 are different values to Python
// (a float prints "1.0", an int "1"), integers are unbounded, and keys sort by code point,
// not by UTF-16 unit. So a dossier is parsed here: floats become PyFloat, integers beyond
// 2^53 BigInt, and `canonical` prints them the way Python does.

/** A number written with a fraction or an exponent: a Python float. */
export class PyFloat {
  constructor(value) {
    this.value = value;
  }
  valueOf() {
    return this.value;
  }
}

/** The numeric value of a parsed number (int, big int or float). */
export function num(x) {
  if (x instanceof PyFloat) return x.value;
  if (typeof x === 'bigint') return Number(x);
  if (typeof x === 'number') return x;
  if (typeof x === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(x)) return Number(x);
  throw new TypeError(`not a number: ${shortText(x)}`);
}

/** Python's int(): a whole number, else an error (int() of a float truncates). */
export function int(x) {
  const v = num(x);
  if (!Number.isFinite(v)) throw new TypeError(`not a number: ${shortText(x)}`);
  return Math.trunc(v);
}

export function isInt(x) {
  return (typeof x === 'number' && Number.isInteger(x)) || typeof x === 'bigint';
}

export function isObject(x) {
  return x !== null && typeof x === 'object' && !Array.isArray(x) && !(x instanceof PyFloat);
}

function shortText(x) {
  const t = typeof x === 'string' ? x : String(x);
  return t.length > 40 ? `${t.slice(0, 40)}…` : t;
}

// ------------------------------------------------------------------------- parsing

const WS = new Set([' ', '\t', '\n', '\r']);

/** Parse JSON text; throws SyntaxError on anything Python's json.loads would refuse. */
export function parse(text) {
  let i = 0;
  const n = text.length;
  const fail = (what) => {
    throw new SyntaxError(`${what} at character ${i + 1}`);
  };
  const ws = () => {
    while (i < n && WS.has(text[i])) i += 1;
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') return object();
    if (c === '[') return array();
    if (c === '"') return string();
    if (c === '-' || (c >= '0' && c <= '9')) return number();
    if (text.startsWith('true', i)) return (i += 4), true;
    if (text.startsWith('false', i)) return (i += 5), false;
    if (text.startsWith('null', i)) return (i += 4), null;
    if (text.startsWith('NaN', i)) return (i += 3), new PyFloat(NaN);
    if (text.startsWith('Infinity', i)) return (i += 8), new PyFloat(Infinity);
    if (text.startsWith('-Infinity', i)) return (i += 9), new PyFloat(-Infinity);
    return fail('unexpected input');
  };
  const object = () => {
    i += 1;
    const out = {};
    ws();
    if (text[i] === '}') return (i += 1), out;
    for (;;) {
      ws();
      if (text[i] !== '"') fail('expected a key');
      const key = string();
      ws();
      if (text[i] !== ':') fail("expected ':'");
      i += 1;
      // Python keeps the last value of a repeated key, as JavaScript does.
      Object.defineProperty(out, key, {
        value: value(),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      ws();
      if (text[i] === ',') {
        i += 1;
        continue;
      }
      if (text[i] === '}') return (i += 1), out;
      fail("expected ',' or '}'");
    }
  };
  const array = () => {
    i += 1;
    const out = [];
    ws();
    if (text[i] === ']') return (i += 1), out;
    for (;;) {
      out.push(value());
      ws();
      if (text[i] === ',') {
        i += 1;
        continue;
      }
      if (text[i] === ']') return (i += 1), out;
      fail("expected ',' or ']'");
    }
  };
  const string = () => {
    i += 1;
    let out = '';
    let start = i;
    for (;;) {
      if (i >= n) fail('unterminated string');
      const c = text.charCodeAt(i);
      if (c === 34) break; // "
      if (c < 0x20) fail('control character in a string');
      if (c === 92) {
        out += text.slice(start, i);
        const e = text[i + 1];
        const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e in simple) {
          out += simple[e];
          i += 2;
        } else if (e === 'u') {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad \\u escape');
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
        } else fail('bad escape');
        start = i;
        continue;
      }
      i += 1;
    }
    out += text.slice(start, i);
    i += 1;
    return out;
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail('bad number');
    i += m[0].length;
    if (m[2] === undefined && m[3] === undefined) {
      const v = Number(m[0]);
      return Number.isSafeInteger(v) ? v : BigInt(m[0]);
    }
    return new PyFloat(Number(m[0]));
  };
  const out = value();
  ws();
  if (i !== n) fail('extra data');
  return out;
}

// ------------------------------------------------------------------------- printing

/** Python's repr() of a float (the shortest text that reads back the same double). */
export function floatRepr(v) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const [mant, expText] = v.toExponential().split('e');
  const exp = Number(expText);
  const sign = mant.startsWith('-') ? '-' : '';
  const digits = mant.replace('-', '').replace('.', '');
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : `${Math.abs(exp)}`;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

function quote(s) {
  let out = '"';
  for (let k = 0; k < s.length; k += 1) {
    const c = s.charCodeAt(k);
    if (c === 34) out += '\\"';
    else if (c === 92) out += '\\\\';
    else if (c === 10) out += '\\n';
    else if (c === 13) out += '\\r';
    else if (c === 9) out += '\\t';
    else if (c === 8) out += '\\b';
    else if (c === 12) out += '\\f';
    else if (c < 0x20) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += s[k];
  }
  return `${out}"`;
}

/** Compare two strings by code point, as Python sorts str. */
export function codePointCompare(a, b) {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let k = 0; k < Math.min(x.length, y.length); k += 1) {
    const d = x[k].codePointAt(0) - y[k].codePointAt(0);
    if (d) return d;
  }
  return x.length - y.length;
}

/** `json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`. */
export function canonical(v) {
  if (v === null || v === undefined) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (v instanceof PyFloat) return floatRepr(v.value);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : floatRepr(v);
  if (typeof v === 'string') return quote(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const keys = Object.keys(v).sort(codePointCompare);
  return `{${keys.map((k) => `${quote(k)}:${canonical(v[k])}`).join(',')}}`;
}

/** Whether two parsed values are equal as Python compares their canonical JSON. */
export function same(a, b) {
  return canonical(a) === canonical(b);
}

/** A deep copy (PyFloat kept). */
export function copy(v) {
  if (Array.isArray(v)) return v.map(copy);
  if (isObject(v)) {
    const out = {};
    for (const k of Object.keys(v)) out[k] = copy(v[k]);
    return out;
  }
  return v;
}
