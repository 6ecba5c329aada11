// The `pistol` rules (docs/rules/pistol.md, P1-P20) as a second implementation, for the
// replay of check 7 of docs/fairness.md: setup, default order, who acts, the turn, the
// outcome, the GM's rulings. States and events are the dossier's JSON.
import { int, isInt, isObject } from './pyjson.js';

export const VERSION = '1';

// Every DEFAULT of docs/rules/pistol.md (P2, P5, P6, P8, P11-P14, P17), as the dossier
// writes a configuration.
const DEFAULTS = {
  turn_limit: 6,
  move_max: 2,
  aim_min: -5,
  aim_max: 5,
  silhouette: {
    head: [[0, 1]],
    torso: [
      [0, 0],
      [0, -1],
    ],
    arm: [
      [-1, 0],
      [1, 0],
    ],
    leg: [
      [-1, -2],
      [1, -2],
    ],
  },
  lethality: { head: 'always', torso: 'roll', arm: 'never', leg: 'never' },
  lethal_roll_sides: 100,
  lethal_roll_max: 50,
  weapons: {
    derringer: { name: 'derringer', zone: 4, speed: 2 },
    pistol: { name: 'pistol', zone: 3, speed: 1 },
    revolver: { name: 'revolver', zone: 3, speed: 1 },
    rifle: { name: 'rifle', zone: 3, speed: 0 },
    dueling_pistol: { name: 'dueling pistol (matched pair)', zone: 2, speed: 0 },
  },
  bot_rolls_all: true,
  initiative_die: 6,
  initiative_move_penalty: 1,
  initiative_tie_rerolls: 0,
  perks: {
    thick_skinned: { name: 'thick-skinned', shrug_parts: ['arm', 'leg'], shrug_count: 1 },
    lucky: { name: 'lucky', never_lethal_parts: ['torso'] },
    steady_hand: { name: 'steady hand', zone_delta: -1 },
  },
  max_perks: null,
  default_order: { move: 0, aim: [0, 0] },
  presets: {
    marksman: { weapon: 'rifle', perks: ['steady_hand'] },
    gunslinger: { weapon: 'revolver', perks: ['lucky'] },
    brawler: { weapon: 'pistol', perks: ['thick_skinned'] },
    cardsharp: { weapon: 'derringer', perks: ['lucky'] },
    gentleman: { weapon: 'dueling_pistol', perks: [] },
  },
};

/** What the rules refuse (a configuration, a sheet, an order, a ruling). */
export class Rejection extends Error {}

function mapValues(obj, f) {
  const out = {};
  for (const k of Object.keys(obj)) out[k] = f(obj[k]);
  return out;
}

/** The full configuration (as the dossier's states write it) from a match's overrides. */
export function config(raw) {
  const c = { ...DEFAULTS };
  for (const k of Object.keys(raw || {})) {
    if (!(k in DEFAULTS)) throw new Rejection(`unknown configuration field ${k}`);
    c[k] = raw[k];
  }
  return {
    ...c,
    silhouette: mapValues(c.silhouette, (cells) => cells.map((xy) => [int(xy[0]), int(xy[1])])),
    weapons: mapValues(c.weapons, (w) => ({
      name: w.name,
      zone: int(w.zone),
      speed: int(w.speed),
      player_rolls: Boolean(w.player_rolls),
    })),
    perks: mapValues(c.perks, (p) => ({
      name: p.name,
      shrug_parts: [...(p.shrug_parts || [])],
      shrug_count: int(p.shrug_count || 0),
      never_lethal_parts: [...(p.never_lethal_parts || [])],
      zone_delta: int(p.zone_delta || 0),
      speed_delta: int(p.speed_delta || 0),
    })),
    default_order: { move: int(c.default_order.move), aim: c.default_order.aim.map(int) },
    presets: mapValues(c.presets, (s) => ({ weapon: s.weapon, perks: [...(s.perks || [])] })),
  };
}

function duelist(cfg, pid, sheet, live = {}) {
  const weapon = cfg.weapons[sheet.weapon];
  if (!weapon) throw new Rejection(`unknown weapon ${sheet.weapon}`);
  const perks = (sheet.perks || []).map((p) => {
    if (!cfg.perks[p]) throw new Rejection(`unknown perk ${p}`);
    return cfg.perks[p];
  });
  const sum = (f) => perks.reduce((a, p) => a + f(p), 0);
  return {
    pid,
    weapon: sheet.weapon,
    perks: [...(sheet.perks || [])],
    zone: Math.max(1, weapon.zone + sum((p) => p.zone_delta)), // P17 steady_hand
    speed: weapon.speed + sum((p) => p.speed_delta),
    player_rolls: weapon.player_rolls && !cfg.bot_rolls_all, // P13
    shrug_parts: new Set(perks.flatMap((p) => p.shrug_parts)),
    never_lethal: new Set(perks.flatMap((p) => p.never_lethal_parts)),
    shrugs_left: 'shrugs_left' in live ? live.shrugs_left : sum((p) => p.shrug_count),
    status: live.status || 'standing',
    part: live.part ?? null,
  };
}

function state(cfg, duelists, turn) {
  return { cfg, duelists, turn };
}

export function loadState(raw) {
  const cfg = config(raw.config || {});
  const duelists = raw.duelists.map((d) =>
    duelist(
      cfg,
      String(d.pid),
      { weapon: d.weapon, perks: d.perks || [] },
      { shrugs_left: int(d.shrugs_left), status: String(d.status), part: d.part ?? null },
    ),
  );
  return state(cfg, duelists, int(raw.turn));
}

export function dumpState(s) {
  return {
    turn: s.turn,
    config: s.cfg,
    duelists: s.duelists.map((d) => ({
      pid: d.pid,
      weapon: d.weapon,
      perks: [...d.perks],
      shrugs_left: d.shrugs_left,
      status: d.status,
      part: d.part,
    })),
  };
}

/** P1: two duelists from the seats (`{pid, character}`); turn 0 rolls no die. */
export function setup(overrides, seats) {
  if (seats.length !== 2) throw new Rejection('pistol needs two duelists');
  const cfg = config(overrides);
  const duelists = seats.map((s) => {
    const sheet = s.character || {};
    const perks = sheet.perks || [];
    if (new Set(perks).size !== perks.length) throw new Rejection('a perk twice');
    if (cfg.max_perks !== null && perks.length > cfg.max_perks) throw new Rejection('too many perks');
    return duelist(cfg, s.pid, sheet);
  });
  return state(cfg, duelists, 1);
}

/** P2, P16, P18: the outcome of a state. */
export function outcome(s) {
  const standing = s.duelists.filter((d) => d.status === 'standing').map((d) => d.pid);
  if (standing.length === s.duelists.length) {
    return s.turn > s.cfg.turn_limit
      ? { status: 'draw', winners: [], reason: 'turn_limit' }
      : { status: 'running', winners: [], reason: '' };
  }
  if (!standing.length) return { status: 'mutual', winners: [], reason: 'mutual_hit' };
  return { status: 'win', winners: standing, reason: 'hit' };
}

/** Who must give an order: every duelist while the duel runs. */
export function acting(s) {
  return outcome(s).status === 'running' ? s.duelists.map((d) => d.pid) : [];
}

export function defaultOrder(s) {
  const d = s.cfg.default_order;
  return { move: d.move, aim: [d.aim[0], d.aim[1]] };
}

function pair(value) {
  if (typeof value === 'string' && value.includes(':')) {
    const parts = value.split(':');
    if (parts.length === 2 && parts.every((p) => /^\s*[+-]?\d+\s*$/.test(p))) return parts.map(Number);
  }
  if (Array.isArray(value) && value.length === 2 && value.every((v) => isInt(v))) {
    return value.map(Number);
  }
  throw new Rejection('aim: two integers [A, B] or "A:B"');
}

/** P6: a sealed order as the rules read it. */
export function parseOrder(raw) {
  if (!isObject(raw)) throw new Rejection('an order is an object');
  for (const k of Object.keys(raw)) {
    if (!['move', 'aim', 'pick'].includes(k)) throw new Rejection(`order field ${k}`);
  }
  if (!isInt(raw.move)) throw new Rejection('move: an integer');
  if (!('aim' in raw)) throw new Rejection('aim: required');
  const [x, y] = pair(raw.aim);
  const pick = raw.pick !== undefined && raw.pick !== null ? pair(raw.pick) : null;
  return { move: Number(raw.move), x, y, pick };
}

function roll(events, dice, sides, purpose, actor) {
  const face = dice.face(sides);
  events.push({ kind: 'roll', actor, sides, faces: [face], purpose, mode: 'plain' });
  return face;
}

function initiative(s, events, dice, d, order) {
  const r = roll(events, dice, s.cfg.initiative_die, 'initiative', d.pid);
  const total = r + d.speed - Math.abs(order.move) * s.cfg.initiative_move_penalty; // P14
  events.push({ kind: 'initiative', actor: d.pid, move: order.move, roll: r, speed: d.speed, total });
  return total;
}

function applyHit(s, target, shooter, part, live, events, dice) {
  if (target.shrug_parts.has(part) && live.shrugs_left > 0) {
    live.shrugs_left -= 1; // P17 thick_skinned
    events.push({ kind: 'perk', actor: target.pid, effect: 'shrug', part, by: shooter });
    return false;
  }
  const mode = s.cfg.lethality[part];
  let lethal = mode === 'always';
  if (mode !== 'never' && target.never_lethal.has(part)) {
    lethal = false; // P17 lucky
    events.push({ kind: 'perk', actor: target.pid, effect: 'not_lethal', part, by: shooter });
  } else if (mode === 'roll') {
    const r = roll(events, dice, s.cfg.lethal_roll_sides, 'lethality', target.pid); // P11
    lethal = r <= s.cfg.lethal_roll_max;
  }
  if (live.status !== 'dead') {
    live.status = lethal ? 'dead' : 'wounded'; // P18
    live.part = part;
  }
  events.push({ kind: lethal ? 'death' : 'wound', actor: target.pid, part, by: shooter });
  return true;
}

/** P9-P19: one turn from `s` with `orders` (pid -> parsed order); returns [state, events]. */
export function resolve(s, orders, dice) {
  if (outcome(s).status !== 'running') throw new Rejection('the duel is over');
  const events = [];
  const [d0, d1] = s.duelists;
  const o0 = orders[d0.pid] || parseOrder(defaultOrder(s));
  const o1 = orders[d1.pid] || parseOrder(defaultOrder(s));
  let t0 = initiative(s, events, dice, d0, o0);
  let t1 = initiative(s, events, dice, d1, o1);
  for (let k = 0; t0 === t1 && k < s.cfg.initiative_tie_rerolls; k += 1) {
    t0 = initiative(s, events, dice, d0, o0);
    t1 = initiative(s, events, dice, d1, o1);
  }
  const simultaneous = t0 === t1; // P14
  const shots =
    t0 >= t1
      ? [
          [d0, d1, o0, o1],
          [d1, d0, o1, o0],
        ]
      : [
          [d1, d0, o1, o0],
          [d0, d1, o0, o1],
        ];
  const cells = new Map();
  for (const [part, cs] of Object.entries(s.cfg.silhouette)) {
    for (const [x, y] of cs) cells.set(`${x},${y}`, part);
  }
  const live = new Map();
  let over = false;
  for (const [shooter, target, so, to] of shots) {
    const shift = -to.move; // P10
    if (over) {
      events.push({ kind: 'no_shot', actor: shooter.pid, reason: 'duel_over' }); // P15/P19
      continue;
    }
    const n = shooter.zone;
    let f;
    let h;
    if (shooter.player_rolls && so.pick !== null) [f, h] = so.pick; // P13
    else {
      f = roll(events, dice, n, 'hit_x', shooter.pid);
      h = roll(events, dice, n, 'hit_y', shooter.pid);
    }
    const c = so.x + shift + f - 1; // P9
    const r = so.y - h + 1;
    const part = cells.get(`${c},${r}`);
    const data = { target: target.pid, aim: [so.x, so.y], shift, zone: n, dice: [f, h], cell: [c, r] };
    if (part === undefined) {
      events.push({ kind: 'miss', actor: shooter.pid, ...data });
      continue;
    }
    events.push({ kind: 'hit', actor: shooter.pid, ...data, part });
    if (!live.has(target.pid)) {
      live.set(target.pid, { shrugs_left: target.shrugs_left, status: target.status, part: target.part });
    }
    if (applyHit(s, target, shooter.pid, part, live.get(target.pid), events, dice) && !simultaneous) {
      over = true;
    }
  }
  const duelists = s.duelists.map((d) => (live.has(d.pid) ? { ...d, ...live.get(d.pid) } : d));
  const after = state(s.cfg, duelists, s.turn + 1);
  const result = outcome(after);
  if (result.status !== 'running') {
    events.push({
      kind: 'outcome',
      actor: null,
      status: result.status,
      winners: result.winners,
      reason: result.reason,
      turn: s.turn,
      turn_limit: s.cfg.turn_limit,
    });
  }
  return [after, events];
}

/** What a GM may rule on for a seat, with its value now. */
export function editable(s, pid) {
  const d = s.duelists.find((x) => x.pid === pid);
  if (!d) throw new Rejection(`no seat ${pid}`);
  return { status: d.status, shrugs_left: d.shrugs_left };
}

/** A GM ruling (docs/fairness.md, "`edit` entries"): `status` or `shrugs_left` of a seat. */
export function edit(s, pid, field, value) {
  const d = s.duelists.find((x) => x.pid === pid);
  if (!d) throw new Rejection(`no seat ${pid}`);
  let changed;
  if (field === 'status') {
    if (!['standing', 'wounded', 'dead'].includes(value)) throw new Rejection('status value');
    changed = { ...d, status: value, part: value === 'standing' ? null : d.part };
  } else if (field === 'shrugs_left') {
    if (!isInt(value) || value < 0 || value > 99) throw new Rejection('shrugs_left value');
    changed = { ...d, shrugs_left: Number(value) };
  } else throw new Rejection(`field ${field}`);
  const edited = state(s.cfg, s.duelists.map((x) => (x.pid === pid ? changed : x)), s.turn);
  if (outcome(edited).status !== 'running') throw new Rejection('a ruling may not end the duel');
  return edited;
}
