// A second, independent verifier of a Sekundant dossier, written from docs/fairness.md
// ("What `sekundant verify` checks" and "Details an independent verifier needs"). Every
// mismatch is a finding "turn N: what: dossier says X, replay gives Y"; notes are what a
// reader should know that is not a mismatch. The `pistol` rules are replayed in full
// (./pistol.js); for `plans` and `dragons` who must act, the default orders and the outcome
// are computed from the states (./light.js) and every die is re-derived, but the turns are
// not replayed (the events besides the dice, the state a turn leaves, the GM's rulings'
// effect are left to `sekundant verify`), and `replayed` says so.
import { DiceStream, diceKey, roundAfter, sha256Hex, unhex, utf8ToBytes, verifyBeacon } from './crypto.js';
import * as light from './light.js';
import * as pistol from './pistol.js';
import { PyFloat, canonical, codePointCompare, int, isObject, num, parse, same } from './pyjson.js';

export const FORMAT = 'sekundant-dossier';
export const FORMAT_VERSIONS = [1, 2];
export const ENGINE_VERSIONS = ['1'];
const REASONS = ['all_sealed', 'deadline', 'forced'];
const DEFAULT_SEQ = 2 ** 30;
const EXPLOSION_CAP = 20;
/** "The lock message": bounds of the lock checks (seconds). */
export const LOCK_BOUNDS = { maxGap: 30, skew: 1 };

export const QUICKNET = {
  name: 'quicknet',
  public_key:
    '83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a',
  genesis_time: 1692803367,
  period: 3,
};
const PUBLIC_NETWORKS = { quicknet: QUICKNET };

/** The rulesets this verifier knows: its version and, when ported, its rules. */
export const RULESETS = {
  pistol: { version: pistol.VERSION, rules: pistol, light: null },
  plans: { version: '1.0', rules: null, light: light.plans },
  dragons: { version: '2', rules: null, light: light.dragons },
};

const GM_ONLY = new Set([
  'force_resolve',
  'undo',
  'edit',
  'replace',
  'pause',
  'extend',
  'clock',
  'veto',
  'seed_only',
  'end',
]);

export class NotADossierError extends Error {}

const UNSET = Symbol('unset');

function textOf(v) {
  if (v === UNSET) return 'nothing';
  return typeof v === 'string' ? v : canonical(v);
}

/** Both values as text; long ones cut around their first difference (never equal-looking). */
function pairText(says, gives, limit = 160) {
  const a = Array.from(textOf(says));
  const b = Array.from(textOf(gives));
  if (a.length <= limit && b.length <= limit) return [a.join(''), b.join('')];
  let at = 0;
  while (at < Math.min(a.length, b.length) && a[at] === b[at]) at += 1;
  const start = Math.max(0, at - 40);
  const cut = (t) =>
    (start ? '…' : '') + t.slice(start, start + limit).join('') + (start + limit < t.length ? '…' : '');
  return [`${cut(a)} (from character ${start + 1})`, `${cut(b)} (from character ${start + 1})`];
}

function where(turn, undone) {
  if (turn === null || turn === undefined) return 'dossier';
  return `${undone ? 'undone turn' : 'turn'} ${turn}`;
}

function findingText(f) {
  if (f.says === UNSET && f.gives === UNSET) return `${where(f.turn, f.undone)}: ${f.what}`;
  const [s, g] = pairText(f.says, f.gives);
  return `${where(f.turn, f.undone)}: ${f.what}: dossier says ${s}, replay gives ${g}`;
}

const sortStrings = (xs) => [...xs].sort(codePointCompare);

/** The record of the turn before that an undone `record` was played on: the latest of that
 * turn's records (kept, or undone later) resolved by then and not undone before it resolved. */
function playedOn(record, records) {
  const number = int(record.turn);
  const resolved = num(record.resolved_at);
  let best = null;
  for (const r of records) {
    if (r === record || int(r.turn) !== number - 1 || num(r.resolved_at) > resolved) continue;
    if ((r.undone_at ?? null) !== null && num(r.undone_at) < resolved) continue;
    if (best === null || num(r.resolved_at) > num(best.resolved_at)) best = r;
  }
  return best;
}

const LANGUAGES = ['en', 'ru'];
const SEAT_ENTRIES = new Set(['edit', 'replace', 'forfeit', 'veto']);
const ACTIONS = new Set([...GM_ONLY, 'hand_gm', 'forfeit', 'resume']);
const SCHEME = 'bls-unchained-g1-rfc9380';
const OPAQUE = new Set(['state_before', 'state_after', 'events', 'order', 'config']);

/** Every time (a `*_at` number, or a GM entry's `at`) in `value`, however deep, outside the
 * rules' own data. */
function timesIn(value, out = []) {
  if (Array.isArray(value)) for (const item of value) timesIn(item, out);
  else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const time = k === 'at' || k.endsWith('_at');
      if (time && (typeof v === 'number' || v instanceof PyFloat)) out.push(num(v));
      else if (!OPAQUE.has(k)) timesIn(v, out);
    }
  }
  return out;
}
const at = (a) => num(a.at);

/** Verify dossier JSON text (parsed as Python reads it). */
export function verifyText(text) {
  let doc;
  try {
    doc = parse(text);
  } catch (e) {
    throw new NotADossierError(`not JSON (${e.message})`);
  }
  return verify(doc);
}

/**
 * The verdict on a parsed dossier: `{ok, ruleset, replayed, turns, played, undone, findings,
 * notes}`; each finding and note has `turn`, `undone`, `what` and `text`. Throws
 * NotADossierError when it is not a dossier at all.
 */
export function verify(d) {
  if (!isObject(d) || d.format !== FORMAT) {
    throw new NotADossierError('not a Sekundant dossier (its "format" is not sekundant-dossier)');
  }
  const v = new Verifier(d);
  try {
    v.run();
  } catch (e) {
    v.add(null, `malformed dossier, cannot go on (${e?.name || 'Error'}: ${e?.message || e})`);
  }
  const turns = Array.isArray(d.turns) ? d.turns.length : 0;
  return {
    ok: v.findings.length === 0,
    ruleset: isObject(d.match) ? String(d.match.ruleset) : '',
    replayed: Boolean(v.rules),
    turns,
    played: Math.max(0, turns - 1),
    undone: Array.isArray(d.undone) ? d.undone.length : 0,
    findings: v.findings.map((f) => ({ turn: f.turn, undone: f.undone, what: f.what, text: findingText(f) })),
    notes: v.notes.map((n) => ({ ...n, text: `${where(n.turn, n.undone)}: ${n.what}` })),
  };
}

class Verifier {
  constructor(d) {
    this.d = d;
    this.findings = [];
    this.notes = [];
    this.undone = false;
    this.rules = null;
  }

  add(turn, what, says = UNSET, gives = UNSET, undone = this.undone) {
    this.findings.push({ turn, what, says, gives, undone });
  }

  note(turn, what, undone = this.undone) {
    this.notes.push({ turn, what, undone });
  }

  run() {
    const d = this.d;
    if (!FORMAT_VERSIONS.includes(d.format_version)) {
      this.add(null, 'format version', d.format_version, FORMAT_VERSIONS);
      return;
    }
    if (!ENGINE_VERSIONS.includes(d.engine_version)) {
      this.add(null, 'engine version', d.engine_version, ENGINE_VERSIONS[ENGINE_VERSIONS.length - 1]);
    }
    const match = d.match;
    const known = Object.hasOwn(RULESETS, match.ruleset) ? RULESETS[match.ruleset] : null;
    if (!known) {
      this.add(null, 'ruleset', match.ruleset, 'no such ruleset in this verifier');
      return;
    }
    this.match = match;
    if (String(match.ruleset_version) !== known.version) {
      this.add(null, 'match ruleset version', match.ruleset_version, known.version);
      return;
    }
    this.rules = known.rules;
    this.light = known.light;
    if (this.rules) {
      try {
        this.rules.config(match.config || {});
      } catch (e) {
        if (!(e instanceof this.rules.Rejection)) throw e;
        this.add(null, 'configuration', match.config, 'one the rules accept');
        return;
      }
    }
    this.interventions = [...(d.interventions || [])];
    this.seats = new Map(match.seats.map((s) => [s.pid, s]));
    const turns = [...d.turns];
    const undone = [...(d.undone || [])];
    if (d.format_version !== 1) this.checkUndos(undone);
    let previous = null;
    turns.forEach((turn, index) => {
      const number = int(turn.turn);
      if (number !== index) this.add(number, 'turn numbering', number, index);
      this.turn(turn, previous);
      previous = turn;
    });
    this.undone = true;
    for (const turn of undone) {
      this.turn(turn, playedOn(turn, [...turns, ...undone]));
      if ((turn.undone_at ?? null) !== null && num(turn.undone_at) < num(turn.resolved_at)) {
        this.add(int(turn.turn), 'undone before it resolved', turn.undone_at, `>= ${textOf(turn.resolved_at)}`);
      }
    }
    this.undone = false;
    for (const a of this.interventions) {
      if (a.action === 'undo') {
        this.note(
          a.undone_turn ?? null,
          "undone by the GM and played again: the GM got one more roll of this turn's dice (both records are in the dossier)",
        );
      }
    }
    this.checkBinding(turns, undone);
    this.checkFields(turns, undone);
    this.checkForced(turns, undone);
    this.checkPauses([...turns, ...undone]);
    this.checkLocks(turns, undone);
    this.checkMatch(turns);
  }

  // ------------------------------------------------------------------ one turn

  turn(turn, previous) {
    const match = this.match;
    const number = int(turn.turn);
    if (String(turn.match_id ?? match.id) !== String(match.id)) {
      this.add(number, 'match of the turn', turn.match_id, match.id);
    }
    if (String(turn.ruleset_version) !== String(match.ruleset_version)) {
      this.add(number, 'ruleset version of the turn', turn.ruleset_version, match.ruleset_version);
      return;
    }
    if (String(turn.engine_version ?? '1') !== String(this.d.engine_version)) {
      this.add(number, 'engine version of the turn', turn.engine_version, this.d.engine_version);
    }
    const expected = number === 0 ? ['setup'] : REASONS;
    if (!expected.includes(turn.reason)) {
      this.add(number, 'reason of the turn', turn.reason, expected.join(' or '));
    }
    const seed = unhex(turn.seed);
    if (seed === null) throw new TypeError(`turn ${number}: the seed is not hex`);
    const digest = sha256Hex(seed);
    if (digest !== turn.commitment) {
      this.add(number, 'seed does not match its commitment', turn.commitment, digest);
    }
    this.window(turn, previous);
    const beacon = this.beacon(turn);
    const dice = new DiceStream(diceKey(seed, beacon ? beacon.randomness : null), String(match.id), number);
    if (this.rules) this.replay(turn, previous, number, dice);
    else this.partial(turn, previous, number, dice);
  }

  /** Check 7 with the ported rules: setup or resolve, events and final state compared. */
  replay(turn, previous, number, dice) {
    const rules = this.rules;
    let state;
    let events = [];
    if (number === 0) {
      if (turn.orders.length) this.add(0, 'orders in the setup', turn.orders.length, 0);
      try {
        state = rules.setup(this.match.config || {}, this.match.seats);
      } catch (e) {
        if (!(e instanceof rules.Rejection)) throw e;
        const characters = {};
        for (const seat of this.match.seats) characters[seat.pid] = seat.character ?? {};
        this.add(0, 'characters of the seats', characters, 'ones the rules accept');
        return;
      }
      if (!(turn.state_before === undefined || turn.state_before === null || same(turn.state_before, {}))) {
        this.add(0, 'state before the setup', turn.state_before, {});
      }
    } else {
      if (previous !== null) this.chain(number, previous, turn);
      const before = rules.loadState(turn.state_before);
      const sealed = this.orders(number, turn, before);
      if (sealed === null) return;
      [state, events] = rules.resolve(before, sealed, dice);
    }
    this.events(number, events, turn.events);
    const after = rules.dumpState(state);
    if (!same(after, turn.state_after)) this.add(number, 'state after the turn', turn.state_after, after);
  }

  /** A ruleset not replayed: who acted and the orders' own checks, the chain without
   * rulings, every die. */
  partial(turn, previous, number, dice) {
    if (number === 0 && turn.orders.length) this.add(0, 'orders in the setup', turn.orders.length, 0);
    if (number > 0 && previous !== null) this.chain(number, previous, turn);
    if (number > 0 && this.orders(number, turn, null) === null) return;
    this.dice(number, turn.events, dice);
  }

  /** "No die chosen": every recorded roll's faces re-derived from the turn's dice key. */
  dice(number, recorded, stream) {
    let k = 0;
    for (const e of recorded) {
      k += 1;
      if (!isObject(e) || e.kind !== 'roll') continue;
      const sides = int(e.sides);
      const faces = e.faces;
      const mode = e.mode ?? 'plain';
      let mine;
      if (mode === 'pool') mine = faces.map(() => stream.face(sides));
      else if (mode === 'ace') {
        mine = [stream.face(sides)];
        while (mine[mine.length - 1] === sides && mine.length <= EXPLOSION_CAP) mine.push(stream.face(sides));
      } else mine = [stream.face(sides)];
      if (!same(mine, faces)) {
        this.add(number, `event ${k} (roll ${e.purpose} for ${e.actor ?? null})`, { ...e }, { ...e, faces: mine });
        return;
      }
    }
  }

  window(turn, previous) {
    const number = int(turn.turn);
    const resolved = num(turn.resolved_at);
    const opened = turn.opened_at ?? null;
    const locked = turn.locked_at ?? null;
    if (previous !== null && num(previous.resolved_at) > resolved) {
      this.add(number, 'resolved before the previous turn', resolved, `>= ${textOf(previous.resolved_at)}`);
    }
    if (previous !== null && opened !== null && num(opened) < num(previous.resolved_at)) {
      this.add(number, 'opened before the previous turn resolved', opened, `>= ${textOf(previous.resolved_at)}`);
    }
    if (locked !== null && !(opened === null || (Math.floor(num(opened)) <= num(locked) && num(locked) <= resolved))) {
      this.add(number, 'lock time outside the turn', locked, `between ${textOf(opened)} and ${resolved}`);
    }
    const posted = turn.commitment_posted_at ?? null;
    if (posted !== null && opened !== null && num(posted) < num(opened)) {
      this.add(number, 'commitment posted before the turn opened', posted, `>= ${textOf(opened)}`);
    }
    if (posted !== null && num(posted) > resolved) {
      this.add(number, 'commitment posted after the turn resolved', posted, `<= ${resolved}`);
    }
    const frozen = turn.frozen_at ?? null;
    const marks = turn.orders.filter((o) => !o.default).map((o) => num(o.sealed_at));
    if (opened !== null) marks.push(num(opened));
    const earliest = marks.length ? Math.max(...marks) : null;
    if (frozen !== null && (num(frozen) > resolved || (earliest !== null && num(frozen) < earliest))) {
      this.add(number, 'time the turn stopped taking orders', frozen, `between ${earliest} and ${resolved}`);
    }
    // A lock message's date is whole seconds: posted within [date, date + 1), with the skew.
    const end =
      locked === null ? resolved : num(locked) + (turn.lock_message == null ? 0 : 1 + LOCK_BOUNDS.skew);
    const start = opened !== null ? opened : previous === null ? null : previous.resolved_at;
    for (const order of turn.orders) {
      if (order.default) continue;
      const t = num(order.sealed_at);
      if (posted !== null && t < num(posted)) {
        this.add(number, `${order.pid}'s order sealed before the turn's commitment was posted`, t, `>= ${textOf(posted)}`);
      } else if (t > end || (start !== null && t < num(start))) {
        this.add(number, `${order.pid}'s order sealed outside the turn's open/lock window`, t, `between ${textOf(start)} and ${end}`);
      }
    }
  }

  beacon(turn) {
    const number = int(turn.turn);
    const raw = turn.beacon ?? null;
    const target = turn.beacon_round ?? null;
    if (raw === null) {
      const why =
        target !== null
          ? `the beacon round ${textOf(target)} was not had and the GM resolved without it`
          : 'no public beacon was used';
      this.note(number, `server seed only (${why}): dice from the server's seed only — the operator could choose them`);
      if (
        target !== null &&
        !this.undone &&
        !this.interventions.some((a) => a.action === 'seed_only' && int(a.turn ?? -1) === number)
      ) {
        this.add(number, 'resolved without its beacon round but no GM entry says so', 'no beacon', `round ${textOf(target)}`);
      }
      return null;
    }
    const b = {
      network: String(raw.network),
      round: int(raw.round),
      signature: String(raw.signature),
      randomness: String(raw.randomness),
    };
    const network = this.network(number, b.network);
    if (target !== null && int(target) !== b.round) this.add(number, 'beacon round the lock fixed', b.round, int(target));
    if (network !== null) {
      const locked = turn.locked_at ?? null;
      if (locked !== null && roundAfter(network, num(locked)) !== b.round) {
        this.add(number, 'beacon round after the lock', b.round, roundAfter(network, num(locked)));
      }
      if (!verifyBeacon(network.public_key, b.round, b.signature)) {
        this.add(number, `beacon signature of round ${b.round}`, b.signature, "not the network's signature");
      }
    }
    const sig = unhex(b.signature);
    if (sig === null) throw new TypeError(`turn ${number}: the beacon signature is not hex`);
    const randomness = sha256Hex(sig);
    if (randomness !== b.randomness) this.add(number, 'beacon randomness', b.randomness, randomness);
    return b;
  }

  listedNetwork(name) {
    const listed = (this.d.beacon_networks || {})[name];
    return isObject(listed) ? listed : null;
  }

  network(number, name) {
    const pub = Object.hasOwn(PUBLIC_NETWORKS, name) ? PUBLIC_NETWORKS[name] : null;
    const listed = this.listedNetwork(name);
    if (pub !== null) {
      if (listed !== null && listed.public_key !== pub.public_key) {
        this.add(number, `public key of beacon network ${name}`, listed.public_key, pub.public_key);
      }
      return pub; // a public network is checked against its pinned key, never the dossier's
    }
    if (listed === null) {
      this.add(number, `beacon network ${name}`, 'unknown', 'a listed network');
      return null;
    }
    this.note(number, `beacon ${name} is not a public beacon (a local test key)`, false);
    return {
      name,
      public_key: String(listed.public_key),
      genesis_time: int(listed.genesis_time),
      period: int(listed.period),
    };
  }

  quietNetwork(name) {
    if (Object.hasOwn(PUBLIC_NETWORKS, name)) return PUBLIC_NETWORKS[name];
    const listed = this.listedNetwork(name);
    if (listed === null || !('public_key' in listed && 'genesis_time' in listed && 'period' in listed)) return null;
    return { name, public_key: listed.public_key, genesis_time: num(listed.genesis_time), period: num(listed.period) };
  }

  /** Check 6: state_before is the previous state_after with the turn's GM rulings applied. */
  chain(number, previous, turn) {
    const t0 = num(previous.resolved_at);
    const t1 = num(turn.resolved_at);
    const rulings = this.interventions.filter(
      (a) => a.action === 'edit' && int(a.turn ?? -1) === number && t0 <= at(a) && at(a) <= t1 && this.seats.has(a.pid),
    );
    let expected;
    if (this.rules) {
      let state = this.rules.loadState(previous.state_after);
      for (const a of rulings) {
        let old;
        try {
          old = this.rules.editable(state, a.pid)[a.field];
          state = this.rules.edit(state, a.pid, a.field, a.new);
        } catch (e) {
          if (!(e instanceof this.rules.Rejection)) throw e;
          this.add(number, `GM ruling on ${a.pid}'s ${a.field}`, a.new, 'a value the rules allow');
          return;
        }
        if (old === undefined || !same(old, a.old ?? null)) {
          this.add(number, `value before the GM's ruling on ${a.pid}'s ${a.field}`, a.old ?? null, old ?? null);
        }
      }
      expected = this.rules.dumpState(state);
    } else if (rulings.length) {
      return; // the rulings of a ruleset not ported here are applied by `sekundant verify`
    } else expected = previous.state_after;
    if (!same(turn.state_before, expected)) {
      let what = "state before the turn differs from the previous turn's end";
      if (rulings.length) what += ` with ${rulings.length} GM ruling(s) applied`;
      this.add(number, what, turn.state_before, expected);
    }
  }

  /** Check 5: who acted, defaults, seq, fingerprints, sealers. `before` null: not replayed
   * (who must act and the defaults from ./light.js). */
  orders(number, turn, before) {
    const rules = this.rules;
    const reason = turn.reason;
    const resolved = num(turn.resolved_at);
    const gone = new Set(
      this.interventions
        .filter((a) => a.action === 'forfeit' && int(a.turn) <= number && at(a) <= resolved)
        .map((a) => a.pid),
    );
    const pids = sortStrings(turn.orders.map((o) => o.pid));
    if (rules) {
      const must = sortStrings(rules.acting(before).filter((p) => !gone.has(p)));
      if (!same(pids, must)) {
        this.add(number, 'seats with an order', pids, must);
        return null;
      }
    } else if (this.light) {
      const must = sortStrings(this.light.acting(turn.state_before).filter((p) => !gone.has(p)));
      if (!same(pids, must)) {
        this.add(number, 'seats with an order', pids, must);
        return null;
      }
    } else if (new Set(pids).size !== pids.length || pids.some((p) => !this.seats.has(p) || gone.has(p))) {
      const seats = sortStrings([...this.seats.keys()].filter((p) => !gone.has(p)));
      this.add(number, 'seats with an order', pids, `one order each, of ${canonical(seats)}`);
      return null;
    }
    const defaults = sortStrings(turn.orders.filter((o) => o.default).map((o) => o.pid));
    if (defaults.length && reason === 'all_sealed') {
      this.add(number, 'default orders in a turn every order was sealed', defaults, []);
    }
    if (reason === 'forced' && !this.undone) {
      const told = this.interventions
        .filter((a) => a.action === 'force_resolve' && int(a.turn) === number)
        .map((a) => sortStrings(a.missing || []));
      if (told.length && !told.some((t) => same(t, defaults))) {
        this.add(number, "default orders vs the seats the GM's force found missing", defaults, told[told.length - 1]);
      }
    }
    const seqs = turn.orders.filter((o) => !o.default).map((o) => int(o.seq));
    if (new Set(seqs).size !== seqs.length || seqs.some((s) => s < 1 || s >= DEFAULT_SEQ)) {
      this.add(number, 'sealing order (seq) of the sealed orders', seqs, 'distinct numbers from 1');
    }
    const bySeq = turn.orders
      .filter((o) => !o.default)
      .map((o) => [int(o.seq), num(o.sealed_at)])
      .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    const times = bySeq.map(([, t]) => t);
    if (times.some((t, k) => k > 0 && t < times[k - 1])) {
      this.add(number, 'sealing order (seq) vs the sealing times', bySeq, 'numbered in time');
    }
    const sealed = {};
    for (const order of turn.orders) {
      const pid = order.pid;
      if (int(order.turn ?? number) !== number) this.add(number, `turn of ${pid}'s order`, order.turn, number);
      if (order.default) {
        const expected = rules ? rules.defaultOrder(before, pid) : this.light?.defaultOrder?.(turn.state_before, pid);
        if (expected !== undefined && !same(expected, order.order)) {
          this.add(number, `default order of ${pid}`, order.order, expected);
        }
        if (order.salt || order.fingerprint || (order.by_user ?? null) !== null) {
          this.add(
            number,
            `default order of ${pid} carries a sealer, salt or fingerprint`,
            { by_user: order.by_user ?? null, salt: order.salt ?? null, fingerprint: order.fingerprint ?? null },
            'none',
          );
        }
        if (int(order.seq) !== DEFAULT_SEQ) {
          this.add(number, `sealing order (seq) of ${pid}'s default order`, order.seq, DEFAULT_SEQ);
        }
      } else {
        const doc = { match: this.match.id, turn: number, pid, order: order.order, salt: order.salt };
        const fp = sha256Hex(utf8ToBytes(canonical(doc)));
        if (fp !== order.fingerprint) this.add(number, `fingerprint of ${pid}'s order`, order.fingerprint, fp);
        this.sealer(number, order);
      }
      if (rules) {
        try {
          sealed[pid] = rules.parseOrder(order.order);
        } catch (e) {
          if (!(e instanceof rules.Rejection)) throw e;
          this.add(number, `${pid}'s order`, order.order, 'an order the rules accept');
          return null;
        }
      }
    }
    return sealed;
  }

  /** The sealer was the seat's player or the GM at the time (replace, hand_gm walked back). */
  sealer(number, order) {
    const pid = order.pid;
    const t = num(order.sealed_at);
    const seat = this.seats.get(pid);
    if (seat === undefined) {
      this.add(number, `seat of ${pid}'s order`, pid, 'no such seat');
      return;
    }
    if (this.interventions.some((a) => a.action === 'replace' && a.pid === pid && !('old_user' in a))) {
      return; // a replacement logged before user ids were: the holder is unknown
    }
    let gm = int(this.match.gm_user_id);
    let user = seat.user_id ?? null;
    const allowed = new Set();
    const both = () => {
      allowed.add(gm);
      if (user !== null) allowed.add(int(user));
    };
    const later = [...this.interventions].sort((a, b) => at(b) - at(a));
    for (const a of later) {
      if (at(a) < t) break;
      if (at(a) === t) both(); // an entry at the sealing time: before or after it
      if (a.action === 'hand_gm') gm = int(a.old);
      if (a.action === 'replace' && a.pid === pid && 'old_user' in a) user = a.old_user;
    }
    both();
    const by = order.by_user ?? null;
    if (!(typeof by === 'number' && allowed.has(by))) {
      this.add(number, `who sealed ${pid}'s order`, by, [...allowed].sort((x, y) => x - y));
    }
  }

  events(number, replayed, recorded) {
    const theirs = recorded.map((e) => {
      const { kind, actor, ...rest } = e;
      return { kind: String(kind), actor: actor ?? null, ...rest };
    });
    const n = Math.min(replayed.length, theirs.length);
    for (let k = 0; k < n; k += 1) {
      const mine = replayed[k];
      if (!same(mine, theirs[k])) {
        let what = `event ${k + 1} (${mine.kind}`;
        if (mine.kind === 'roll') what += ` ${mine.purpose} for ${mine.actor}`;
        this.add(number, `${what})`, theirs[k], mine);
        return;
      }
    }
    if (replayed.length !== theirs.length) this.add(number, 'number of events', theirs.length, replayed.length);
  }

  // ------------------------------------------------------------------ across turns

  checkUndos(undone) {
    const undos = this.interventions.filter((a) => a.action === 'undo');
    const said = undos.map((a) => int(a.undone_turn));
    const have = undone.map((t) => int(t.turn));
    if (!same(said, have)) this.add(null, 'undone turns (GM undo entries vs undone records)', have, said);
    for (let k = 0; k < Math.min(undos.length, undone.length); k += 1) {
      if (!same(undone[k].undone_at ?? null, undos[k].at ?? null)) {
        this.add(int(undone[k].turn), 'time of the undo', undone[k].undone_at ?? null, undos[k].at ?? null);
      }
    }
  }

  checkForced(turns, undone) {
    const forced = new Set([...turns, ...undone].filter((t) => t.reason === 'forced').map((t) => int(t.turn)));
    const entries = new Set(this.interventions.filter((a) => a.action === 'force_resolve').map((a) => int(a.turn)));
    for (const n of [...forced].filter((x) => !entries.has(x)).sort((a, b) => a - b)) {
      this.add(n, "forced resolution without a GM's force entry", 'forced', 'no entry');
    }
    for (const n of [...entries].filter((x) => !forced.has(x)).sort((a, b) => a - b)) {
      this.add(n, "GM's force entry for a turn not resolved as forced", 'no such turn', 'forced');
    }
  }

  /** A paused match's deadline is frozen: no turn resolves "at the deadline" while paused. */
  checkPauses(records) {
    const spans = [];
    let start = null;
    for (const a of [...this.interventions].sort((x, y) => at(x) - at(y))) {
      if (a.action === 'pause' && start === null) start = at(a);
      else if (a.action === 'resume' && start !== null) {
        spans.push([start, at(a)]);
        start = null;
      }
    }
    if (start !== null) spans.push([start, Infinity]);
    for (const t of records) {
      if (t.reason !== 'deadline') continue;
      const when = num(t.locked_at || t.resolved_at);
      for (const [b, e] of spans) {
        if (b < when && when < e) {
          this.add(int(t.turn), 'resolved at the deadline while the match was paused', when, `not between ${b} and ${e === Infinity ? 'inf' : e}`, false);
        }
      }
    }
  }

  /** "The lock message": its date, its bound to the freeze and the seals, its id. */
  checkLocks(turns, undone) {
    this.lockMessages(turns);
    const locks = [...turns, ...undone].filter((t) => t.lock_message).map((t) => int(t.lock_message));
    for (const m of [...new Set(locks.filter((m) => locks.indexOf(m) !== locks.lastIndexOf(m)))].sort((a, b) => a - b)) {
      this.add(null, 'lock message shared by two records', m, 'one per record', false);
    }
    for (const record of undone) {
      const number = int(record.turn);
      const again = turns.filter((t) => int(t.turn) === number);
      const before = this.findings.length;
      this.lockMessages([record, ...again.slice(0, 1)], true, number);
      // only the record's first finding, none about sharing (counted above)
      const mine = this.findings.splice(before).filter((f) => f.turn === number && f.undone && !f.what.includes('shared'));
      if (mine.length) this.findings.push(mine[0]);
      const lock = record.lock_message ?? null;
      const later = again.length ? again[0].commitment_message ?? null : null;
      if (lock !== null && later !== null && int(lock) >= int(later)) {
        this.add(number, "lock message after the undo's new commitment", lock, `< ${later}`, true);
      }
    }
  }

  /** The lock checks of consecutive records (``undone``: findings marked so, for ``only``). */
  lockMessages(turns, undone = false, only = null) {
    const seen = new Set();
    const add = (n, what, says, gives) => {
      if (only === null || n === only) this.add(n, what, says, gives, undone && n === only);
      else this.add(n, what, says, gives, false);
    };
    turns.forEach((turn, index) => {
      const message = turn.lock_message ?? null;
      if (message === null) return;
      const number = int(turn.turn);
      this.lockTimes(number, turn, add);
      if (seen.has(int(message))) add(number, 'lock message shared with another turn', message, 'unique');
      seen.add(int(message));
      const own = turn.commitment_message ?? null;
      if (own !== null && int(message) <= int(own)) {
        add(number, "lock message before the turn's commitment", message, `> ${own}`);
      }
      const next = index + 1 < turns.length ? turns[index + 1].commitment_message ?? null : null;
      if (next !== null && int(message) > int(next)) {
        add(number, "lock message after the next turn's commitment", message, `<= ${next}`);
      }
    });
  }

  lockTimes(number, turn, report) {
    const add = (what, says, gives) => report(number, what, says, gives);
    if ((turn.locked_at ?? null) === null) {
      add('lock message without its date', null, 'a Telegram date');
      return;
    }
    const locked = num(turn.locked_at);
    if (locked !== Math.floor(locked)) add('lock time is not a Telegram date', locked, 'whole seconds');
    const beacon = turn.beacon || null;
    const network = beacon ? this.quietNetwork(String(beacon.network ?? '')) : null;
    const target = turn.beacon_round ?? null;
    if (network !== null && target !== null && int(target) !== roundAfter(network, locked)) {
      add('beacon round after the lock message', target, roundAfter(network, locked));
    }
    const times = turn.orders.filter((o) => !o.default).map((o) => num(o.sealed_at));
    if ((turn.frozen_at ?? null) !== null) times.push(num(turn.frozen_at));
    if (!times.length) return;
    const last = Math.max(...times);
    if (locked + 1 + LOCK_BOUNDS.skew <= last) add('lock message dated before the turn locked', locked, `>= ${last}`);
    else if (locked - last > LOCK_BOUNDS.maxGap) {
      add(`lock message posted ${Math.round(locked - last)} s after the turn locked`, locked, `<= ${last + LOCK_BOUNDS.maxGap}`);
    }
  }

  /** Check 8: the bookkeeping fields bound against each other. */
  checkBinding(turns, undone) {
    const d = this.d;
    if (d.format_version === 1) return;
    const records = [...turns.map((t) => [t, false]), ...undone.map((t) => [t, true])];
    const seen = new Map();
    const listed = [...records, ...(d.current ? [[d.current, false]] : [])];
    for (const [turn, wasUndone] of listed) {
      const number = int(turn.turn);
      const message = turn.commitment_message ?? null;
      const sealed = [...(turn.orders || []).filter((o) => !o.default), ...(turn.sealed || [])];
      if (message === null) {
        if (sealed.length) {
          this.add(number, 'commitment message of a turn with sealed orders', null, 'the group message that posted the commitment', wasUndone);
        }
        continue;
      }
      if (seen.has(int(message))) {
        const [other, otherUndone] = seen.get(int(message));
        this.add(number, 'commitment message shared with another turn', message, `${otherUndone ? 'undone ' : ''}turn ${other}`, wasUndone);
      }
      seen.set(int(message), [number, wasUndone]);
    }
    this.gmEntries();
    for (const a of this.interventions) {
      if (a.action !== 'seed_only') continue;
      const number = int(a.turn);
      const same_ = records.map(([t]) => t).filter((t) => int(t.turn) === number);
      const without = same_.filter((t) => (t.beacon ?? null) === null);
      if (!without.length) {
        this.add(number, "GM's seed_only entry", 'server seed only', same_.length ? 'resolved with its beacon' : 'no such turn', false);
      } else if (without.every((t) => !same(t.beacon_round ?? null, a.beacon_round ?? null))) {
        const rounds = [...new Set(without.map((t) => canonical(t.beacon_round ?? null)))].sort();
        this.add(number, 'round named by the GM\'s seed_only entry', a.beacon_round ?? null, rounds.map((r) => parse(r)), false);
      }
    }
    for (const [turn, wasUndone] of records) {
      const number = int(turn.turn);
      if ((turn.beacon ?? null) !== null && (turn.beacon_round ?? null) === null) {
        this.add(number, 'beacon round of a turn with a beacon', null, turn.beacon.round ?? null, wasUndone);
      }
      const resolved = turn.resolved_at ?? null;
      for (const o of turn.orders || []) {
        if (o.default && resolved !== null && num(o.sealed_at) !== num(resolved)) {
          this.add(number, `time of ${o.pid}'s default order (written at the resolution)`, o.sealed_at, resolved, wasUndone);
        }
      }
    }
    const match = this.match;
    if (turns.length && (turns[0].opened_at ?? null) !== null && (match.created_at ?? null) !== null) {
      const created = num(match.created_at);
      const opened = num(turns[0].opened_at);
      if (created > opened) this.add(null, 'match created after its turn 0 opened', created, `<= ${opened}`, false);
    }
  }

  /** Check 9: the fields no replay reads, bound to the rest of the record. */
  checkFields(turns, undone) {
    const d = this.d;
    if (d.format_version === 1) return;
    const match = this.match;
    const log = this.interventions;
    const add = (turn, what, says, gives) => this.add(turn, what, says, gives, false);
    const generated = d.generated_at;
    const latest = timesIn([match, [...turns, ...undone], log, d.current || {}]);
    if (!(typeof generated === 'number' || generated instanceof PyFloat)) {
      add(null, 'time the dossier was generated', generated ?? null, 'a time');
    } else if (latest.length && num(generated) < Math.max(...latest)) {
      add(null, 'dossier generated before what it records', generated, `>= ${Math.max(...latest)}`);
    }
    if (turns.length && (turns[0].opened_at ?? null) !== null && (match.created_at ?? null) !== null) {
      if (num(match.created_at) < num(turns[0].opened_at)) {
        add(null, 'match created before its turn 0 opened', match.created_at, turns[0].opened_at);
      }
    }
    if (!LANGUAGES.includes(match.lang)) add(null, 'language of the match', match.lang ?? null, LANGUAGES);
    const pids = (match.seats || []).map((x) => x.pid);
    const forfeited = new Set(log.filter((a) => a.action === 'forfeit').map((a) => a.pid));
    for (const seat of match.seats || []) {
      const { pid, name } = seat;
      const user = seat.user_id ?? null;
      const npc = seat.npc;
      if (typeof name !== 'string' || !name.trim()) add(null, `name of seat ${pid}`, name ?? null, 'a name');
      if (typeof (seat.reachable ?? true) !== 'boolean') add(null, `reachable of seat ${pid}`, seat.reachable, 'true or false');
      if (npc === true && user !== null) add(null, `player of NPC seat ${pid}`, user, 'none (the GM runs it)');
      else if (npc !== true && (npc !== false || typeof user !== 'number' || !Number.isInteger(user))) {
        add(null, `seat ${pid}: NPC or player`, { npc: npc ?? null, user_id: user }, "a player's id");
      }
      const status = forfeited.has(pid) ? 'forfeit' : 'active';
      if (seat.status !== status) add(null, `status of seat ${pid}`, seat.status ?? null, status);
      const replaced = log.filter((a) => a.action === 'replace' && a.pid === pid);
      for (let k = 1; k < replaced.length; k += 1) {
        const [a, b] = [replaced[k - 1], replaced[k]];
        if ('old_user' in b && !same([b.old_user ?? null, b.old ?? null], [a.new_user ?? null, a.new ?? null])) {
          add(null, `seat ${pid}: replaced player vs the one the previous replacement seated`, [b.old_user, b.old], [a.new_user, a.new]);
        }
      }
      const last = replaced[replaced.length - 1];
      if (last && 'new_user' in last && !same([last.new_user ?? null, last.new ?? null], [user, name ?? null])) {
        add(null, `seat ${pid}: its player vs the last replacement`, [user, name], [last.new_user, last.new]);
      }
    }
    for (const a of log) {
      if (!ACTIONS.has(a.action)) add(null, 'kind of GM entry', a.action ?? null, [...ACTIONS].sort());
      if (SEAT_ENTRIES.has(a.action) && !pids.includes(a.pid)) {
        add(typeof a.turn === 'number' ? a.turn : null, `seat named by the GM's ${a.action} entry`, a.pid ?? null, pids);
      }
      if (typeof (a.reason ?? '') !== 'string') add(null, `reason of the GM's ${a.action} entry`, a.reason, 'a text');
      if (a.action === 'force_resolve') {
        const n = int(a.turn);
        const known = [...turns, ...undone]
          .filter((t) => int(t.turn) === n && t.reason === 'forced' && (t.frozen_at ?? null) !== null)
          .map((t) => num(t.frozen_at));
        if (known.length && !known.includes(num(a.at))) add(n, "time of the GM's force vs the turn's freeze", a.at, known);
      }
      if (a.action === 'edit') {
        const n = int(a.turn);
        const when = num(a.at);
        const after = [...turns, ...undone].filter((t) => int(t.turn) === n - 1).map((t) => num(t.resolved_at));
        const until = n >= 0 && n < turns.length ? num(turns[n].resolved_at) : null;
        if (!after.some((t) => t <= when) || (until !== null && when > until)) {
          add(n, "time of the GM's ruling vs its turn", when, 'while the turn was open');
        }
      }
    }
    for (const [key, network] of Object.entries(d.beacon_networks || {})) {
      if (!isObject(network)) {
        add(null, `beacon network ${key}`, network, 'its parameters');
        continue;
      }
      if (network.name !== key) add(null, `name of beacon network ${key}`, network.name ?? null, key);
      if (network.scheme !== SCHEME) add(null, `scheme of beacon network ${key}`, network.scheme ?? null, SCHEME);
    }
  }

  /** Every GM-only entry by the GM of its moment (hand_gm followed in the log's order). */
  gmEntries() {
    const match = this.match;
    const log = this.interventions;
    const hands = log.filter((a) => a.action === 'hand_gm');
    let gm = hands.length ? int(hands[0].old) : int(match.gm_user_id);
    const holders = new Map();
    for (const seat of match.seats || []) {
      const replaced = log.filter((a) => a.action === 'replace' && a.pid === seat.pid);
      holders.set(seat.pid, replaced.length ? replaced[0].old_user ?? null : seat.user_id ?? null);
    }
    for (const a of log) {
      const by = a.by ?? null;
      const number = (a.turn ?? null) !== null ? int(a.turn) : null;
      if (GM_ONLY.has(a.action) || (a.action === 'resume' && by !== 0 && by !== null)) {
        if (by !== gm) this.add(number, `who made the GM's ${a.action} entry`, by, gm, false);
      } else if (a.action === 'forfeit') {
        const holder = holders.has(String(a.pid)) ? holders.get(String(a.pid)) : null;
        const expected = a.own ? holder : gm;
        if (by !== expected) this.add(number, `who made the ${a.action} entry`, by, expected, false);
      }
      if (a.action === 'hand_gm') {
        if (int(a.old) !== gm) this.add(number, 'GM handing over the role', a.old, gm, false);
        gm = int(a.new);
      }
      if (a.action === 'replace') holders.set(String(a.pid), a.new_user ?? null);
    }
    if (gm !== int(match.gm_user_id)) this.add(null, 'GM after the hand-overs', match.gm_user_id, gm, false);
  }

  // ------------------------------------------------------------------ the match

  checkMatch(turns) {
    const match = this.match;
    const phase = match.phase;
    const outcome = match.outcome ?? null;
    const current = this.d.current ?? null;
    const ends = this.interventions.filter((a) => a.action === 'end');
    const gmEnd = ends.length ? ends[ends.length - 1] : null;
    if (!turns.length) {
      if (phase !== 'lobby' && !(phase === 'finished' && gmEnd)) this.add(null, 'phase', phase, 'lobby (no turn was played)');
      return;
    }
    const forfeit = this.interventions.filter((a) => a.action === 'forfeit');
    const final = turns[turns.length - 1].state_after;
    let result = null;
    if (this.rules) result = this.rules.outcome(this.rules.loadState(final));
    else if (this.light?.outcome) result = this.light.outcome(final);
    if (gmEnd !== null) {
      const expected = { status: gmEnd.result ?? null, by_gm: true };
      if ('winners' in gmEnd) expected.winners = [...gmEnd.winners];
      const shown = {};
      for (const k of Object.keys(expected)) shown[k] = (outcome || {})[k] ?? null;
      if (phase !== 'finished') this.add(null, 'phase after the GM ended the match', phase, 'finished');
      else if (!same(shown, expected)) this.add(null, "outcome (the GM's recorded ruling)", shown, expected);
    } else if (result !== null && result.status !== 'running') {
      if (phase !== 'finished') this.add(null, 'phase', phase, `finished (${result.status})`);
      else if (!same(outcome, result)) this.add(null, 'outcome (from the replayed final state)', outcome, result);
    } else if (outcome !== null && outcome.reason === 'forfeit' && forfeit.length) {
      const gone = new Set(forfeit.map((a) => a.pid));
      const active = sortStrings([...this.seats.keys()].filter((p) => !gone.has(p)));
      if (phase !== 'finished') this.add(null, 'phase after the forfeits', phase, 'finished');
      if (!same(sortStrings(outcome.winners || []), active)) this.add(null, 'winners after the forfeits', outcome.winners ?? null, active);
    } else if (result !== null) {
      if (phase !== 'running') this.add(null, 'phase', phase, 'running (the replayed final state is not over)');
      if (outcome !== null) this.add(null, 'outcome', outcome, null);
    }
    const last = int(turns[turns.length - 1].turn);
    if (phase === 'running') {
      if (current === null) this.add(null, 'open turn of a running match', null, last + 1);
      else if (int(current.turn) !== last + 1) this.add(null, 'current turn number', current.turn, last + 1);
    } else if (current !== null) {
      this.add(null, 'open turn of a match that is not running', current.turn ?? null, null);
    }
  }
}
