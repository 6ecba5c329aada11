// The plans page (docs/rules/plans.md C7-C17): the plan as one form; the exact chances come
// from the engine (/api/odds, the chat builder's own preview) as the form changes.

export function render(main, view, ui) {
  const { t, el, api, pct, seal, sealControl, note } = ui;
  const page = view.plans;
  const sealed = view.sealed?.order ?? {};
  const none = t("webapp.plans.none");

  function select(name, options, value, optional = false) {
    const s = el("select", { name, id: `f-${name}` });
    if (optional) s.append(el("option", { value: "", text: none }));
    for (const o of options) {
      const opt = el("option", { value: o.id, text: o.label });
      if (o.id === value) opt.selected = true;
      s.append(opt);
    }
    return s;
  }
  const groups = page.groups.map((g) => ({ id: g.id, label: t("webapp.plans.reserve", { group: g.label, n: g.reserve }) }));
  const plainGroups = page.groups.map((g) => ({ id: g.id, label: g.label }));
  const skills = page.skills.map((s) => ({ id: s.id, label: `${s.label} (${s.level})` }));
  const theirs = page.their_skills.map((s) => ({ id: s.id, label: s.label }));
  const actions = page.actions.map((a) => ({ id: a.id, label: a.label }));

  const f = {
    group: select("group", groups, sealed.group),
    skill: select("skill", skills, sealed.skill),
    action: select("action", actions, sealed.action),
    second: select("second", skills, sealed.second?.skill, true),
    second_group: select("second_group", plainGroups, sealed.second?.group, true),
    soak: select("soak", plainGroups, sealed.soak, true),
    restore: select("restore", plainGroups, sealed.restore, true),
    guess_group: select("guess_group", plainGroups, sealed.guess?.group, true),
    guess_skill: select("guess_skill", theirs, sealed.guess?.skill, true),
    guess_action: select("guess_action", actions, sealed.guess?.action, true),
    text: el("textarea", { name: "text", id: "f-text", maxlength: String(page.text[1]) }),
  };
  f.text.value = sealed.text ?? "";
  const help = el("p", { class: "muted" });
  const count = el("p", { class: "muted" });
  const odds = el("div", { class: "odds", id: "odds" });

  const field = (key, control) => el("div", {}, el("label", { for: control.id, text: t(key) }), control);
  main.append(
    el("section", {},
      field("webapp.plans.group", f.group),
      field("webapp.plans.skill", f.skill),
      field("webapp.plans.action", f.action), help),
    el("section", {}, odds),
    el("section", {},
      field("webapp.plans.text", f.text), count),
    el("section", {},
      field("webapp.plans.second", f.second),
      field("webapp.plans.second_group", f.second_group),
      field("webapp.plans.soak", f.soak),
      field("webapp.plans.restore", f.restore)),
    el("section", {},
      el("h2", { text: t("webapp.plans.guess", { name: page.opponent.name }) }),
      field("webapp.plans.group", f.guess_group),
      field("webapp.plans.skill", f.guess_skill),
      field("webapp.plans.action", f.guess_action)),
  );

  function order() {
    const o = { group: f.group.value, skill: f.skill.value, action: f.action.value, text: f.text.value.trim() };
    if (f.second.value) o.second = { skill: f.second.value, group: f.second_group.value || f.group.value };
    if (f.soak.value) o.soak = f.soak.value;
    if (f.restore.value) o.restore = f.restore.value;
    const guess = {};
    if (f.guess_group.value) guess.group = f.guess_group.value;
    if (f.guess_skill.value) guess.skill = f.guess_skill.value;
    if (f.guess_action.value) guess.action = f.guess_action.value;
    if (Object.keys(guess).length) o.guess = guess;
    return o;
  }

  let asked = 0;
  let legal = false;
  // The text only changes the count and whether the plan can be sealed: no request per key.
  function textChanged() {
    const n = f.text.value.trim().length;
    const [lo, hi] = page.text;
    count.textContent = t("webapp.plans.count", { n, min: lo, max: hi });
    sealControl(() => seal(view, order()), legal && n >= lo && n <= hi);
  }
  async function refresh() {
    const o = order();
    help.textContent = page.actions.find((a) => a.id === o.action)?.help ?? "";
    const mine = ++asked;
    let res;
    try {
      const { text, ...draft } = o;
      res = await api("/api/odds", { match: view.match, pid: view.pid, order: draft });
    } catch (e) {
      note(e.message, "error");
      return;
    }
    if (mine !== asked) return;  // a newer draft is on its way
    odds.replaceChildren();
    legal = !res.error;
    if (res.error) {
      odds.append(el("p", { class: "why", text: res.error }));
      textChanged();
      return;
    }
    odds.append(el("p", { text: t("webapp.plans.pool", { pool: res.pool, sides: page.sides, target: page.target, ...res.parts }) }));
    if (!res.group_paid) odds.append(el("p", { class: "why", text: t("webapp.plans.unpaid") }));
    if (res.at_least.length) {
      odds.append(el("p", { class: "muted", text: t("webapp.plans.chances") }));
      const table = el("table", { class: "chances" });
      res.at_least.slice(0, 6).forEach((fr, i) => {
        if (i > 0 && fr[0] / fr[1] < 0.001) return;
        table.append(el("tr", {}, el("td", { text: t("webapp.plans.at_least", { k: i + 1 }) }), el("td", {}, el("b", { text: pct(fr) }))));
      });
      odds.append(table);
    } else {
      odds.append(el("p", { class: "why", text: t("webapp.plans.no_dice") }));
    }
    if (o.action !== "defensive") odds.append(el("p", { class: "muted", text: t("webapp.plans.damage", { n: res.damage_pool }) }));
    textChanged();
  }
  for (const c of Object.values(f)) {
    if (c === f.text) c.addEventListener("input", textChanged);
    else c.addEventListener("change", refresh);
  }
  textChanged();
  refresh();
}
