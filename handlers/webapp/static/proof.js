// The "📜 Proof" page: the match's dossier (or a file the reader picks) checked in this
// browser by proof-bundle.js, a second implementation of docs/fairness.md (webapp-verifier/).
// One line says what holds or what does not; the findings and notes are one tap away.
import { verifyText } from "./proof-bundle.js";

// Each finding's "what" (the verifier's, as `sekundant verify` prints it) in the reader's words.
const KINDS = [
  [/seed does not match|commitment/, "webapp.proof.kind.commitment"],
  [/beacon|lock/, "webapp.proof.kind.beacon"],
  [/fingerprint|sealed (outside|before)|who sealed|seq|turn of/, "webapp.proof.kind.order"],
  [/^event|number of events/, "webapp.proof.kind.dice"],
  [/default order|seats with an order|force/, "webapp.proof.kind.acting"],
  [/state|outcome|phase|winners|open turn|current turn/, "webapp.proof.kind.result"],
  [/GM|undo|undone|seed_only/, "webapp.proof.kind.gm"],
];
const NOTES = [
  [/^server seed only/, "webapp.proof.note.seed_only"],
  [/not a public beacon/, "webapp.proof.note.local"],
  [/^undone by the GM/, "webapp.proof.note.undo"],
];

function where(ui, item) {
  if (item.turn === null || item.turn === undefined) return ui.t("webapp.proof.where.dossier");
  return ui.t(item.undone ? "webapp.proof.where.undone" : "webapp.proof.where.turn", { n: item.turn });
}

function kind(list, what, fallback) {
  return (list.find(([re]) => re.test(what)) || [null, fallback])[1];
}

/** The verdict in one line, then the details (what was checked, findings, notes). */
export function verdictView(ui, verdict, rulesetName) {
  const { el, t } = ui;
  const box = el("div", { class: "proof", id: "verdict", dataset: { ok: String(verdict.ok) } });
  let line;
  if (verdict.ok) {
    line = t("webapp.proof.ok", { n: verdict.played, undone: verdict.undone });
  } else {
    const first = verdict.findings[0];
    line = t("webapp.proof.bad", { where: where(ui, first), what: t(kind(KINDS, first.what, "webapp.proof.kind.other")) });
  }
  box.append(el("p", { class: verdict.ok ? "verdict ok" : "verdict bad", text: line }));
  if (!verdict.replayed) {
    box.append(el("p", { class: "muted", text: t("webapp.proof.partial", { ruleset: rulesetName || verdict.ruleset }) }));
  }
  if (verdict.notes.length) {
    box.append(el("p", { class: "muted", text: t("webapp.proof.notes_count", { n: verdict.notes.length }) }));
  }
  const details = el("details", {}, el("summary", { text: t("webapp.proof.details") }));
  details.append(el("p", { text: t(verdict.replayed ? "webapp.proof.checked" : "webapp.proof.checked_partial") }));
  if (verdict.findings.length) {
    details.append(el("h2", { text: t("webapp.proof.findings", { n: verdict.findings.length }) }));
    const list = el("ul", { class: "findings" });
    for (const f of verdict.findings) list.append(el("li", { text: f.text }));
    details.append(list);
  }
  if (verdict.notes.length) {
    details.append(el("h2", { text: t("webapp.proof.notes") }));
    const list = el("ul", { class: "notes" });
    for (const n of verdict.notes) {
      list.append(el("li", { text: `${where(ui, n)}: ${t(kind(NOTES, n.what, "webapp.proof.note.other"))}` }));
    }
    details.append(list);
  }
  box.append(details);
  return box;
}

/** Verify dossier text; the verdict, or null (and a note) when it is not a dossier. */
export function check(ui, text) {
  try {
    return verifyText(text);
  } catch (e) {
    ui.note(ui.t("webapp.proof.not_dossier"), "error");
    return null;
  }
}

function filePicker(ui) {
  const { el, t } = ui;
  const out = el("div", { id: "proof-file-out" });
  const input = el("input", { type: "file", accept: ".json,application/json", id: "proof-file" });
  input.addEventListener("change", async () => {
    const file = input.files?.[0];
    if (!file) return;
    ui.note("");
    out.replaceChildren(el("p", { class: "muted", text: t("webapp.proof.checking") }));
    const text = await file.text();
    await new Promise((r) => setTimeout(r, 0)); // let the "checking" line show
    const verdict = check(ui, text);
    out.replaceChildren(...(verdict ? [el("p", { class: "muted", text: file.name }), verdictView(ui, verdict)] : []));
  });
  return el("section", {}, el("label", { for: "proof-file", text: t("webapp.proof.file") }), input, out);
}

/** The proof of `match` (from the API), or only the file picker when `match` is empty. */
export async function render(main, match, ui) {
  const { el, t, api } = ui;
  const out = el("div", { id: "proof-out" });
  let data = null;
  if (match) {
    data = await api("/api/dossier", { match });
  } else {
    data = await api("/api/strings", { lang: ui.lang });
  }
  document.documentElement.lang = data.lang;
  document.title = t("webapp.proof.title");
  document.getElementById("title").textContent = t("webapp.proof.title");
  document.getElementById("sub").textContent = data.title || t("webapp.proof.file_only");
  main.replaceChildren(out, filePicker(ui));
  if (!data.dossier) return;
  out.append(el("p", { class: "muted", text: t("webapp.proof.checking") }));
  await new Promise((r) => setTimeout(r, 0));
  const verdict = check(ui, data.dossier);
  out.replaceChildren();
  if (verdict) {
    out.append(verdictView(ui, verdict, data.ruleset));
    if (JSON.parse(data.dossier).match?.phase === "running") {
      out.append(el("p", { class: "muted", text: t("webapp.proof.running") }));
    }
  }
}
