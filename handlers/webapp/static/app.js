// The order page: who opened it (Telegram's signed initData), which seat, and the ruleset's
// page module (pistol.js, plans.js, dragons.js). Every text comes from the bot's catalogs
// (the API's "strings"); every number from the engine. No framework, no build step.

const tg = window.Telegram?.WebApp ?? null;
const params = new URLSearchParams(location.search);
const hash = new URLSearchParams(location.hash.slice(1));
const initData = tg?.initData || hash.get("tgWebAppData") || "";
// Inside Telegram the native MainButton seals; in a desktop browser (the sandbox's link) a
// button at the bottom of the page does.
const native = Boolean(tg && tg.initData && tg.platform && tg.platform !== "unknown");
const clientLang = (tg?.initDataUnsafe?.user?.language_code || navigator.language || "en")
  .toLowerCase().startsWith("ru") ? "ru" : "en";
// Only until the first answer brings the catalogs' texts.
const BOOT = {
  ru: { loading: "Загрузка…", network: "Бот не отвечает: проверьте связь и попробуйте снова." },
  en: { loading: "Loading…", network: "No answer from the bot: check the connection and try again." },
}[clientLang];

let S = {};  // the page's texts, webapp.* keys
let sealHandler = null;
let back = () => openList();  // Telegram's BackButton: the list, or closing the proof page
let sealBusy = false;

export function t(key, fields = {}) {
  const text = S[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in fields ? String(fields[name]) : m));
}

export function pct(fr) {
  const v = (100 * fr[0]) / fr[1];
  if (v === 0 || v === 100) return `${v}%`;
  return `${v < 1 ? v.toFixed(2) : v.toFixed(1)}%`;
}

export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c != null) node.append(c);
  return node;
}

export async function api(path, body) {
  let res;
  try {
    res = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `tma ${initData}` },
      body: JSON.stringify(body),
    });
  } catch (e) {
    throw new Error(S["webapp.err.network"] || BOOT.network);
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) throw new Error(data?.error || BOOT.network);
  if (data?.strings) S = data.strings;
  return data;
}

export function note(text, kind = "") {
  const box = document.getElementById("note");
  box.hidden = !text;
  box.textContent = text || "";
  box.className = kind;
}

function haptic(kind) {
  try { tg?.HapticFeedback?.notificationOccurred(kind); } catch (e) { /* not in Telegram */ }
}

// The seal control: the MainButton in Telegram, the page's bar elsewhere.
export function sealControl(onSeal, enabled = true) {
  sealHandler = onSeal;
  const label = t("webapp.page.seal");
  if (native) {
    const mb = tg.MainButton;
    mb.setText(label);
    enabled ? mb.enable() : mb.disable();
    mb.show();
  } else {
    const bar = document.getElementById("bar");
    const button = document.getElementById("seal");
    button.textContent = label;
    button.disabled = !enabled;
    bar.hidden = false;
  }
}

function hideSeal() {
  sealHandler = null;
  if (native) tg.MainButton.hide();
  else document.getElementById("bar").hidden = true;
}

async function runSeal() {
  if (!sealHandler || sealBusy) return;
  sealBusy = true;
  if (native) tg.MainButton.showProgress?.(false);
  try {
    await sealHandler();
    haptic("success");
  } catch (e) {
    note(e.message, "error");
    haptic("error");
  } finally {
    sealBusy = false;
    if (native) tg.MainButton.hideProgress?.();
  }
}

// One key per draft order: a double tap or a retry of the same draft seals once.
const keys = new Map();
export function keyFor(order) {
  const k = JSON.stringify(order);
  if (!keys.has(k)) keys.set(k, crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2) + Date.now());
  return keys.get(k);
}

export async function seal(view, order) {
  note(t("webapp.page.sealing"));
  const done = await api("/api/seal", {
    match: view.match, pid: view.pid, turn: view.turn, order, key: keyFor(order),
  });
  note(t("webapp.page.sealed", { fp: done.fingerprint.slice(0, 16) }), "ok");
  try {  // the header: who has sealed, and the order sealed now
    header(await api("/api/view", { match: view.match, pid: view.pid }));
  } catch (e) { /* the seal stands; the header catches up on the next open */ }
  return done;
}

function header(view) {
  document.getElementById("title").textContent = view.title;
  const sealed = view.seats.filter((s) => s.sealed).map((s) => s.name);
  const parts = [t("webapp.page.turn", { turn: view.turn })];
  if (sealed.length) parts.push(t("webapp.page.sealed_by", { names: sealed.join(", ") }));
  if (view.sealed) parts.push(t("webapp.page.current", { order: view.sealed.text }));
  document.getElementById("sub").textContent = parts.join(" · ");
}

async function openSeat(match, pid, fromList) {
  const main = document.getElementById("main");
  const view = await api("/api/view", { match, pid });
  document.documentElement.lang = view.lang;
  document.title = t("webapp.page.title");
  header(view);
  main.replaceChildren();
  if (fromList && tg?.BackButton) {
    tg.BackButton.show();
  }
  if (view.phase !== "running") {
    main.append(el("p", { class: "muted", text: t("webapp.page.not_running") }));
    hideSeal();
    return;
  }
  if (view.locked) {
    main.append(el("p", { class: "muted", text: t("webapp.page.locked") }));
    hideSeal();
    return;
  }
  const page = await import(`./${view.ruleset}.js`);
  page.render(main, view, { t, el, api, pct, seal, sealControl, note, reload: () => openSeat(match, pid, fromList) });
}

async function openList() {
  const main = document.getElementById("main");
  const data = await api("/api/matches", {});
  document.documentElement.lang = data.lang;
  document.title = t("webapp.page.title");
  document.getElementById("title").textContent = t("webapp.page.title");
  hideSeal();
  tg?.BackButton?.hide();
  if (data.matches.length === 1 && data.matches[0].seats.length === 1) {
    const m = data.matches[0];
    return openSeat(m.match, m.seats[0].pid, false);
  }
  const list = el("div", { class: "list" });
  for (const m of data.matches) {
    for (const s of m.seats) {
      list.append(el("button", { type: "button", text: `${m.title} — ${s.name}`, onclick: () => guarded(() => openSeat(m.match, s.pid, true)) }));
    }
  }
  main.replaceChildren(
    el("p", { text: data.matches.length ? t("webapp.page.choose") : t("webapp.page.none") }),
    list,
  );
}

// The "📜 Proof" page (proof.js): a match's dossier, or a file, verified in this browser.
async function openProof(match) {
  hideSeal();
  if (tg?.BackButton) {
    back = () => tg.close();
    tg.BackButton.show();
  }
  const page = await import("./proof.js");
  await page.render(document.getElementById("main"), match, { t, el, api, note, lang: clientLang });
}

async function guarded(fn) {
  try {
    note("");
    await fn();
  } catch (e) {
    note(e.message, "error");
  }
}

function boot() {
  document.getElementById("loading").textContent = BOOT.loading;
  document.getElementById("seal").addEventListener("click", runSeal);
  if (tg) {
    tg.ready();
    tg.expand?.();
    tg.MainButton?.onClick(runSeal);
    tg.BackButton?.onClick(() => guarded(back));
  }
  const start = tg?.initDataUnsafe?.start_param || "";
  const match = params.get("m") || (start.match(/^m_([A-Za-z0-9]+)/)?.[1] ?? "");
  const pid = params.get("p") || undefined;
  const proof = params.get("proof") ?? start.match(/^proof_([A-Za-z0-9_-]+)/)?.[1] ?? null;
  if (proof !== null || params.has("verify")) {
    guarded(() => openProof(proof || ""));
    return;
  }
  guarded(() => (match ? openSeat(match, pid, false) : openList()));
}

boot();
