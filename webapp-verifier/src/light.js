// Who must act and the outcome, for the rulesets whose turns this verifier does not replay
// (docs/fairness.md, "Details an independent verifier needs", "Who must act"; the outcomes of
// docs/rules/plans.md C6/C18/C21). Read from the dossier's state JSON.
import { int } from './pyjson.js';

const GROUPS = ['physical', 'magical', 'mental'];

/** The first index of the largest value (Python's max(range(n), key=...)). */
function argmax(values) {
  return values.reduce((best, v, k) => (v > values[best] ? k : best), 0);
}

/** plans: both duelists while the duel runs; the outcome from wounds, first blood, the cap;
 * the default plan (config `default_plan`, docs/rules/plans.md). */
export const plans = {
  defaultOrder(state, pid) {
    const cfg = (state.config || {}).default_plan || {};
    const me = state.fighters.find((f) => f.pid === pid);
    const res = GROUPS.map((g) => int(me.reserves[g]));
    let g;
    if ((cfg.group ?? 'first_with_reserve') === 'first_with_reserve') g = Math.max(0, res.findIndex((r) => r > 0));
    else g = argmax(res);
    const skills = Object.entries(me.sheet.skills); // the sheet's order: first on ties
    const levels = skills.map(([, s]) => int(s.level));
    const skill = skills[argmax(levels)][0];
    let soak = null;
    if ((cfg.soak ?? 'largest_reserve') === 'largest_reserve') {
      const after = res.map((r, k) => r - (k === g && r > 0 ? 1 : 0));
      const best = argmax(after);
      soak = after[best] > 0 ? GROUPS[best] : null;
    }
    return {
      group: GROUPS[g],
      skill,
      action: cfg.action ?? 'defensive',
      second: null,
      soak,
      restore: null,
      guess: { group: null, skill: null, action: null },
      text: '',
      auto: true,
    };
  },
  outcome(state) {
    const cfg = state.config || {};
    const [a, b] = state.fighters;
    let da;
    let db;
    let reason;
    if ((cfg.end_condition ?? 'incapacitation') === 'incapacitation') {
      const limit = int(cfg.wound_limit ?? 5);
      da = int(a.wounds) >= limit;
      db = int(b.wounds) >= limit;
      reason = 'incapacitation';
    } else {
      da = Boolean(a.bled);
      db = Boolean(b.bled);
      reason = 'first_blood';
    }
    if (da || db) {
      if (da && db) return { status: 'draw', winners: [], reason: `both_${reason}` };
      return { status: 'win', winners: [da ? b.pid : a.pid], reason };
    }
    if (int(state.turn) > int(cfg.turn_cap ?? 20)) return { status: 'draw', winners: [], reason: 'turn_cap' };
    return { status: 'running', winners: [], reason: '' };
  },
  acting(state) {
    return plans.outcome(state).status === 'running' ? state.fighters.map((f) => f.pid) : [];
  },
};

/** dragons: every dragon still in the battle; with consumed_attacks_nearest, one that
 * consumed its pilot gets no order (D34). D35: over when at most one side (a dragon that
 * consumed its pilot is a side of its own) has dragons in; a draw past the turn limit. */
export const dragons = {
  /** Level flight, no action; with a configured Speed change, a dragon on a tail keeps its
   * Speed, and whether another can make the change is geometry left to `sekundant verify`
   * (undefined: not compared). */
  defaultOrder(state, pid) {
    const delta = int((state.config || {}).default_speed_delta ?? 0);
    const me = state.dragons.find((d) => d.pid === pid);
    if (delta !== 0 && (me.tail_of ?? null) === null) return undefined;
    return { move: 'level', n: 0, aerobatics: null, actions: [] };
  },
  outcome(state) {
    let team = null;
    for (const d of state.dragons) {
      if (d.status !== 'in') continue;
      const theirs = d.consumed ? `dragon:${d.pid}` : d.side;
      if (team === null) team = theirs;
      else if (theirs !== team) {
        const limit = (state.config || {}).turn_limit ?? null;
        if (limit !== null && int(state.turn) > int(limit)) return { status: 'draw', winners: [], reason: 'turn_limit' };
        return { status: 'running', winners: [], reason: '' };
      }
    }
    if (team === null) return { status: 'draw', winners: [], reason: 'no_one_left' };
    const winners = state.dragons.filter((d) => d.side === team && !d.consumed).map((d) => d.pid);
    if (!winners.length) return { status: 'draw', winners: [], reason: 'dragon_remains' };
    return { status: 'win', winners, reason: 'last_side' };
  },
  acting(state) {
    const own = !(state.config || {}).consumed_attacks_nearest;
    return state.dragons.filter((d) => d.status === 'in' && (own || !d.consumed)).map((d) => d.pid);
  },
};
