// The dragons page (docs/rules/dragons.md D3-D28): the sky (Altitude against Speed), the
// reader's dragon moved to any legal movement (tap or drag), the actions with the engine's
// exact chances (/api/odds), and every action that cannot succeed named with the reason.

const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text != null) node.textContent = text;
  return node;
}

export function render(main, view, ui) {
  const { t, el, api, pct, seal, sealControl, note } = ui;
  const page = view.dragons;
  const legal = page.moves.filter((m) => m.legal);
  const sealed = view.sealed?.order;
  const draft = {
    move: sealed?.move ?? "level",
    n: sealed?.n ?? 0,
    actions: (sealed?.actions ?? []).filter((a) => a.type !== "power"),
  };
  if (!legal.some((m) => m.move === draft.move && m.n === draft.n) && legal.length) {
    const still = legal.find((m) => m.move === "level" && m.n === 0) ?? legal[0];
    draft.move = still.move; draft.n = still.n;
  }

  // the sky: Speed to the right, Altitude up; every dragon, and where mine may go
  const points = [...page.dragons, ...legal];
  const sMin = Math.min(...points.map((p) => p.speed)) - 1;
  const sMax = Math.max(...points.map((p) => p.speed)) + 1;
  const aMin = Math.min(0, ...points.map((p) => p.altitude));
  const aMax = Math.max(...points.map((p) => p.altitude)) + 1;
  const W = 360, H = 230, L = 28, B = 22, T = 8, R = 8;
  const x = (s) => L + ((s - sMin) / Math.max(1, sMax - sMin)) * (W - L - R);
  const y = (a) => H - B - ((a - aMin) / Math.max(1, aMax - aMin)) * (H - B - T);
  const sky = svg("svg", { class: "sky", viewBox: `0 0 ${W} ${H}`, role: "img" });
  sky.append(svg("line", { class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B }));
  sky.append(svg("line", { class: "axis", x1: L, y1: T, x2: L, y2: H - B }));
  for (let s = Math.ceil(sMin); s <= sMax; s += Math.max(1, Math.round((sMax - sMin) / 8))) {
    sky.append(svg("text", { x: x(s), y: H - 6, "text-anchor": "middle" }, String(s)));
  }
  for (let a = aMin; a <= aMax; a += Math.max(1, Math.round((aMax - aMin) / 6))) {
    sky.append(svg("text", { x: 4, y: y(a) + 4 }, String(a)));
  }
  sky.append(svg("text", { x: W - R, y: H - B - 4, "text-anchor": "end" }, t("webapp.dragons.speed")));
  sky.append(svg("text", { x: L + 4, y: T + 10 }, t("webapp.dragons.altitude")));
  const options = new Map();
  for (const m of legal) {
    const c = svg("circle", { class: "opt", cx: x(m.speed), cy: y(m.altitude), r: 9, "data-move": `${m.move}:${m.n}` });
    c.append(svg("title", {}, `${m.label}: ${m.speed}/${m.altitude}`));
    c.addEventListener("click", () => choose(m));
    options.set(`${m.move}:${m.n}`, c);
    sky.append(c);
  }
  // dragons sharing a point share one mark and one label (mine drawn last, on top)
  const spots = new Map();
  for (const d of page.dragons) {
    const k = `${d.speed}:${d.altitude}`;
    if (!spots.has(k)) spots.set(k, []);
    spots.get(k).push(d);
  }
  const order = [...spots.values()].sort((a, b) => a.some((d) => d.me) - b.some((d) => d.me));
  for (const group of order) {
    const d = group[0];
    const cls = group.some((g) => g.me) ? "me" : group.some((g) => !g.ally && !g.me) ? "foe" : "ally";
    sky.append(svg("circle", { class: cls, cx: x(d.speed), cy: y(d.altitude), r: 6 }));
    const names = group.map((g) => (g.me ? `${g.name} ★` : g.name)).join(", ");
    const right = x(d.speed) < W / 2;
    sky.append(svg("text", { x: x(d.speed) + (right ? 9 : -9), y: y(d.altitude) + 18, "text-anchor": right ? "start" : "end" }, names));
  }
  // drag: the nearest legal movement follows the finger
  let dragging = false;
  const nearest = (evt) => {
    const box = sky.getBoundingClientRect();
    const px = ((evt.clientX - box.left) / box.width) * W, py = ((evt.clientY - box.top) / box.height) * H;
    let best = null, dist = Infinity;
    for (const m of legal) {
      const dd = (x(m.speed) - px) ** 2 + (y(m.altitude) - py) ** 2;
      if (dd < dist) { dist = dd; best = m; }
    }
    return best;
  };
  sky.addEventListener("pointerdown", (e) => { dragging = true; sky.setPointerCapture?.(e.pointerId); });
  sky.addEventListener("pointermove", (e) => { if (dragging) { const m = nearest(e); if (m && (m.move !== draft.move || m.n !== draft.n)) choose(m, false); } });
  sky.addEventListener("pointerup", (e) => { if (dragging) { dragging = false; const m = nearest(e); if (m) choose(m); } });

  const moveText = el("p", { id: "move-text" });
  const why = el("p", { class: "why", id: "order-why" });
  const list = el("div", { class: "list", id: "actions" });
  main.append(
    el("section", {}, el("h2", { text: t("webapp.dragons.sky") }), sky, moveText,
      page.pursued ? el("p", { class: "muted", text: t("webapp.dragons.pursuer") }) : null),
    el("section", {}, el("h2", { text: t("webapp.dragons.actions", { max: page.max_actions }) }), list, why),
  );

  function choose(m, ask = true) {
    draft.move = m.move; draft.n = m.n;
    paintMove();
    if (ask) refresh();
  }
  function paintMove() {
    for (const [k, c] of options) c.classList.toggle("chosen", k === `${draft.move}:${draft.n}`);
    const m = page.moves.find((o) => o.move === draft.move && o.n === draft.n);
    moveText.textContent = m ? t("webapp.dragons.move", { move: m.label, speed: m.speed, altitude: m.altitude }) + (m.dangerous ? " " + t("webapp.dragons.dangerous") : "") : "";
  }

  let asked = 0;
  async function refresh() {
    const mine = ++asked;
    let res;
    try {
      res = await api("/api/odds", { match: view.match, pid: view.pid, order: draft });
    } catch (e) {
      note(e.message, "error");
      return;
    }
    if (mine !== asked) return;
    list.replaceChildren();
    for (const item of res.actions) {
      const full = !item.chosen && draft.actions.length >= page.max_actions;
      const lines = [];
      if (item.range != null) lines.push(t("webapp.dragons.range", { range: item.range, band: item.band ?? "—" }));
      if (item.odds) lines.push(t("webapp.dragons.odds", { hit: pct(item.odds.hit), wound: pct(item.odds.wound), shaken: pct(item.odds.shaken) }));
      const b = el("button", {
        type: "button", "aria-pressed": String(item.chosen), dataset: { action: JSON.stringify(item.action) },
        onclick: () => toggle(item),
      }, el("span", { text: item.label }));
      if (lines.length) b.append(el("br"), el("small", { text: lines.join(" · ") }));
      if (item.reason && !item.chosen) {
        b.disabled = true;
        b.append(el("br"), el("small", { class: "why", text: item.reason }));
      } else if (full) {
        b.disabled = true;
      }
      list.append(b);
    }
    why.textContent = res.order ?? "";
    sealControl(() => seal(view, { move: draft.move, n: draft.n, actions: draft.actions }), !res.order);
  }
  function toggle(item) {
    const k = JSON.stringify(item.action);
    const at = draft.actions.findIndex((a) => JSON.stringify(a) === k);
    if (at >= 0) draft.actions.splice(at, 1);
    else draft.actions.push(item.action);
    refresh();
  }
  paintMove();
  refresh();
}
