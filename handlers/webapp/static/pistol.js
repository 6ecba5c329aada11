// The pistol page (docs/rules/pistol.md P5-P11): the opponent's silhouette from the
// shooter's view, every legal aim corner coloured by its exact chance to hit (the engine's,
// in the view), the move as a -N..+N control.

const GLYPH = { head: "☻", torso: "▮", arm: "━", leg: "┃" };

export function render(main, view, ui) {
  const { t, el, pct, seal, sealControl } = ui;
  const page = view.pistol;
  const [lo, hi] = page.aim_window;
  const cells = new Map();
  for (const [part, list] of Object.entries(page.silhouette)) {
    for (const [x, y] of list) cells.set(`${x}:${y}`, part);
  }
  const heat = new Map(page.heat.map((h) => [`${h.aim[0]}:${h.aim[1]}`, h]));
  const sealed = view.sealed?.order;
  const draft = {
    move: sealed ? sealed.move : 0,
    aim: sealed ? sealed.aim : null,
  };
  let mode = "still";
  let part = "";  // colour by any hit, or by one body part

  // the move control
  const moves = el("div", { class: "seg", role: "group" });
  const moveText = el("p", { class: "muted" });
  for (const m of page.moves) {
    const label = m.move === 0 ? "·0·" : m.move < 0 ? `⬅${-m.move}` : `${m.move}➡`;
    moves.append(el("button", { type: "button", "aria-label": m.label, title: m.label, dataset: { move: m.move }, text: label, onclick: () => { draft.move = m.move; paint(); } }));
  }

  // still / moving
  const modes = el("div", { class: "seg", role: "group" });
  for (const m of ["still", "moving"]) {
    modes.append(el("button", { type: "button", dataset: { mode: m }, text: t(`webapp.pistol.${m}_short`), onclick: () => { mode = m; paint(); } }));
  }

  // colour by: any hit or one body part (P11)
  const parts = el("div", { class: "seg", role: "group", id: "parts" });
  for (const p of ["", ...Object.keys(page.silhouette)]) {
    parts.append(el("button", { type: "button", dataset: { part: p }, text: p ? page.parts[p] : t("webapp.pistol.any_hit"), onclick: () => { part = p; paint(); } }));
  }

  // the grid: a column of y labels, then the window; a row of x labels under it
  const width = hi - lo + 1;
  const grid = el("div", { class: "grid", role: "grid" });
  grid.style.gridTemplateColumns = `1.4em repeat(${width}, 1fr)`;
  const buttons = new Map();
  for (let y = hi; y >= lo; y--) {
    grid.append(el("span", { class: "axis", text: String(y) }));
    for (let x = lo; x <= hi; x++) {
      const part = cells.get(`${x}:${y}`);
      const b = el("button", {
        type: "button", class: part ? "cell part" : "cell", dataset: { x, y },
        "aria-label": `${x}:${y}${part ? " " + page.parts[part] : ""}`,
        text: part ? GLYPH[part] ?? "•" : "",
        onclick: () => { draft.aim = [x, y]; paint(); },
      });
      buttons.set(`${x}:${y}`, b);
      grid.append(b);
    }
  }
  grid.append(el("span"));
  for (let x = lo; x <= hi; x++) grid.append(el("span", { class: "axis", text: String(x) }));

  const legend = el("div", { class: "legend" }, el("span", { text: "0%" }), el("span", { class: "scale" }), el("span", { class: "top" }));
  const odds = el("div", { class: "odds", id: "odds" });
  const summary = el("p", { class: "muted", id: "summary" });

  main.append(
    el("section", {}, el("h2", { text: t("webapp.pistol.move") }), moves, moveText),
    el("section", {},
      el("h2", { text: t("webapp.pistol.aim", { name: page.opponent.name, zone: page.zone }) }),
      modes, odds, parts, grid, legend),
    summary,
  );

  function paint() {
    for (const b of moves.children) b.setAttribute("aria-pressed", String(Number(b.dataset.move) === draft.move));
    for (const b of modes.children) b.setAttribute("aria-pressed", String(b.dataset.mode === mode));
    for (const b of parts.children) b.setAttribute("aria-pressed", String(b.dataset.part === part));
    moveText.textContent = page.moves.find((m) => m.move === draft.move)?.label ?? "";
    const key = mode === "still" ? "still_hit" : "moving_hit";
    const chance = (h) => {
      const fr = part ? h[mode][part] : h[key];
      return fr ? fr[0] / fr[1] : 0;
    };
    let top = 0;
    for (const h of page.heat) top = Math.max(top, chance(h));
    legend.querySelector(".top").textContent = pct([Math.round(top * 1000), 1000]);
    const zone = new Set();
    if (draft.aim) {
      const [a, b] = draft.aim;
      for (let dx = 0; dx < page.zone; dx++) for (let dy = 0; dy < page.zone; dy++) zone.add(`${a + dx}:${b - dy}`);
    }
    for (const [k, b] of buttons) {
      const h = heat.get(k);
      const p = h ? chance(h) : 0;
      b.style.setProperty("--a", top > 0 ? (0.06 + 0.84 * (p / top)).toFixed(3) : "0");
      b.classList.toggle("zone", zone.has(k));
      b.classList.toggle("corner", Boolean(draft.aim) && k === `${draft.aim[0]}:${draft.aim[1]}`);
      b.setAttribute("aria-selected", String(zone.has(k)));
    }
    odds.replaceChildren();
    if (draft.aim) {
      const h = heat.get(`${draft.aim[0]}:${draft.aim[1]}`);
      for (const m of ["still", "moving"]) {
        const parts = Object.entries(h[m]).map(([p, fr]) => `${page.parts[p]} ${pct(fr)}`).join(", ");
        const line = el("p", {}, t("webapp.pistol.chance", { when: t(`webapp.pistol.${m}`), p: "" }), el("b", { text: pct(h[`${m}_hit`]) }));
        odds.append(line);
        if (parts) odds.append(el("p", { class: "muted", text: t("webapp.pistol.parts", { parts }) }));
      }
      summary.textContent = t("webapp.pistol.order", { move: draft.move, aim: `${draft.aim[0]}:${draft.aim[1]}` });
    } else {
      const what = part ? ` (${page.parts[part]})` : "";
      summary.textContent = t("webapp.pistol.heat", { when: t(`webapp.pistol.${mode}`) + what });
    }
    sealControl(() => seal(view, { move: draft.move, aim: draft.aim }), Boolean(draft.aim));
  }
  paint();
}
