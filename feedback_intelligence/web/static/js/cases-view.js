// The case list of the management view: open first, the most serious alert first, then oldest first (the
// server's order), each naming its store, with the actions each state allows,
// and the change log. The case routes are the manager's (operator-only until accounts exist): where
// they answer 404 the section stays hidden. Every change sends the revision it was read at (If-Match);
// a 412 means someone else was first, and the list is read again.
// A case is carried to its end here: its owner (oneself, a manager granted its store, or a typed name
// without accounts), its notes and history, and closing it as handled with a root cause of the domain's
// list and what was done. A link to `#case=<ref>` (the alert mail's) opens that case and brings it into view.
// An active case says its age and when it is due, or how long overdue (due.js); an overdue one is marked in
// the warning colour and listed first within its state.

import { getJson, request } from "./api.js";
import { byId, clear, h, replace, show } from "./dom.js";
import { dueOf, dueWords, openedNote, overdueFirst } from "./due.js";
import { applyStatic, formatTime, initialLanguage, translator } from "./i18n.js";
import { pageStore, storeName, storeNames } from "./stores.js";

const ACTIONS = {
  open: ["acknowledge", "dismiss"],
  acknowledged: ["handle", "dismiss"],
  handled: ["reopen"],
  dismissed: ["reopen"],
};
const EXCERPT_CHARS = 160;
const ACTIVE = new Set(["open", "acknowledged"]);
const SHOWN_AT_FIRST = 5; // active cases shown before "show all": the page's report follows the list

// the domain's language, as the rest of the page (/schema); the browser's until it is known
let t = translator(initialLanguage());
let showAll = false;
let names = {};
let rootCauses = {}; // the domain's caseRootCauses: key -> {fi, sv, en}
let me = null; // /auth/me: who is signed in (null or signedIn false: nobody, the typed name acts)
const opened = new Set(); // refs whose story (owner, notes, history) is open: kept open across a reload
// what is typed but not yet saved, by ref: every change re-reads the list, and a refused or stale one
// (412) must not lose a closure half written, nor one case's text when another case is acted on
const drafts = new Map();
const el = {
  section: byId("cases"),
  summary: byId("cases-summary"),
  actorWrap: byId("cases-actor-wrap"),
  actor: byId("cases-actor"),
  status: byId("cases-status"),
  list: byId("cases-list"),
  more: byId("cases-more"),
  audit: byId("audit-list"),
  auditBox: byId("audit-box"),
};

function say(text, kind = "info") {
  el.status.textContent = text || "";
  el.status.dataset.kind = kind;
}

function excerpt(text) {
  return text.length <= EXCERPT_CHARS ? text : `${text.slice(0, EXCERPT_CHARS)}…`;
}

// A dismissal needs a reason: the first press of "Dismiss" opens the field, the second sends it.
function dismissControls(item) {
  const reason = h("input", { type: "text", maxlength: "1000", class: "case-reason", "aria-label": t("cases.reason"),
    placeholder: t("cases.reason"), hidden: true });
  const button = h("button", { type: "button", class: "btn btn-small", dataset: { action: "dismiss" } },
    t("cases.act.dismiss"));
  button.addEventListener("click", () => {
    if (reason.hidden) {
      reason.hidden = false;
      button.textContent = t("cases.confirmDismiss");
      reason.focus();
      return;
    }
    act(item, "dismiss", reason.value, button);
  });
  reason.addEventListener("keydown", (event) => {
    if (event.key === "Enter") button.click();
  });
  return [button, reason];
}

function causeLabel(key) {
  const labels = rootCauses[key];
  return labels ? labels[t.lang] || labels.en || Object.values(labels)[0] : key;
}

// Closing as handled asks why it happened (the domain's list, and words) and what was done: the first
// press of "Mark handled" opens the form, its own button sends it.
function handleControls(item) {
  const id = (name) => `case-${name}-${item.ref.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const cause = h("select", { id: id("cause"), class: "case-cause", required: true },
    h("option", { value: "" }, t("cases.rootCause.pick")),
    Object.keys(rootCauses).map((key) => h("option", { value: key }, causeLabel(key))));
  const words = h("input", { id: id("cause-text"), type: "text", maxlength: "1000", class: "case-cause-text" });
  const done = h("textarea", { id: id("resolution"), maxlength: "2000", rows: "2", class: "case-resolution",
    required: true });
  const send = h("button", { type: "button", class: "btn btn-small btn-primary", dataset: { action: "handle-confirm" } },
    t("cases.confirmHandle"));
  const problem = h("p", { class: "case-closure-problem", role: "alert" }); // beside the field, on a phone too
  const form = h("fieldset", { class: "case-closure", hidden: true },
    h("legend", {}, t("cases.closure")),
    h("label", { class: "label", for: cause.id }, t("cases.rootCause")), cause,
    h("label", { class: "label", for: words.id }, t("cases.rootCauseText")), words,
    h("label", { class: "label", for: done.id }, t("cases.resolution")), done,
    problem,
    h("div", { class: "case-closure-actions" }, send));
  const key = `${item.ref} closure`;
  const kept = drafts.get(key);
  if (kept) {
    [cause.value, words.value, done.value, form.hidden] = [kept.cause, kept.words, kept.done, false];
  }
  const keep = () => drafts.set(key, { cause: cause.value, words: words.value, done: done.value });
  for (const kind of ["input", "change"]) {
    form.addEventListener(kind, () => {
      if (problem.textContent) say(""); // the status line said the same: both go once the field is touched
      problem.textContent = "";
      keep();
    });
  }
  const button = h("button", { type: "button", class: "btn btn-small", dataset: { action: "handle" },
    "aria-expanded": String(!form.hidden) }, t("cases.act.handle"));
  button.addEventListener("click", () => {
    form.hidden = !form.hidden;
    button.setAttribute("aria-expanded", String(!form.hidden));
    if (form.hidden) drafts.delete(key);
    else {
      keep();
      cause.focus();
    }
  });
  const missing = () => {
    if (!cause.value) return [cause, "cases.rootCauseNeeded"];
    if (cause.value === "other" && !words.value.trim()) return [words, "cases.rootCauseTextNeeded"];
    if (!done.value.trim()) return [done, "cases.resolutionNeeded"];
    return null;
  };
  send.addEventListener("click", () => {
    const gap = missing(); // the server says the same (400), this only says it sooner
    problem.textContent = gap ? t(gap[1]) : "";
    if (gap) {
      say(t(gap[1]), "error");
      gap[0].focus();
      return;
    }
    act(item, "handle", "", send,
      { rootCause: cause.value, rootCauseText: words.value.trim() || null, resolution: done.value.trim() });
  });
  return [button, form];
}

// "Take it": the signed-in person's user name makes them the owner as an account (services/cases.py);
// without accounts, the name typed above.
function takeButton(item) {
  const button = h("button", { type: "button", class: "btn btn-small", dataset: { action: "take" } }, t("cases.take"));
  button.addEventListener("click", () => {
    const name = me && me.signedIn ? me.username : el.actor.value.trim();
    if (!name) {
      say(t("cases.nameNeeded"), "error");
      el.actor.focus();
      return;
    }
    setOwner(item, { name }, button);
  });
  return button;
}

function happened(item) {
  const at = item.item?.timestamp;
  if (!at) return t("cases.opened", { time: formatTime(item.openedAt, t) });
  const when = t("cases.happened", { time: formatTime(at, t) });
  const opened = openedNote(item);
  return opened ? `${when} · ${t(opened, { time: formatTime(item.openedAt, t) })}` : when;
}

function ownerWords(owner) {
  if (!owner) return t("cases.noOwner");
  return t(owner.kind === "typed" ? "cases.ownerTyped" : "cases.ownerIs", { name: owner.name });
}

function closureLines(item) {
  if (item.state === "handled" && item.rootCause) {
    return [
      h("p", { class: "case-cause-line" }, h("strong", {}, `${t("cases.rootCause")}: `), causeLabel(item.rootCause),
        item.rootCauseText ? ` – ${item.rootCauseText}` : ""),
      item.resolution ? h("p", { class: "case-resolution-line" }, h("strong", {}, `${t("cases.resolution")}: `),
        item.resolution) : null,
    ];
  }
  if (item.state === "dismissed" && item.dismissReason) {
    return h("p", { class: "case-reason-line" }, h("strong", {}, `${t("cases.dismissedBecause")}: `), item.dismissReason);
  }
  return null;
}

function caseRow(item) {
  const buttons = (ACTIONS[item.state] || []).map((action) => {
    if (action === "dismiss") return dismissControls(item);
    if (action === "handle") return handleControls(item);
    const button = h("button", { type: "button", class: "btn btn-small", dataset: { action } },
      t(`cases.act.${action}`));
    button.addEventListener("click", () => act(item, action, "", button));
    return button;
  });
  const mine = item.owner && me && me.signedIn && item.owner.kind === "account" && item.owner.name === me.displayName;
  if (ACTIVE.has(item.state) && !mine) buttons.unshift(takeButton(item));
  // the closing form opens below the row of buttons, not between them
  const controls = buttons.flat();
  const forms = controls.filter((c) => c.tagName === "FIELDSET");
  const categories = (item.item?.alertCategories || []).map((c) => t(`alert.${c}`)).join(", ");
  const story = storyBox(item);
  const late = Boolean(dueOf(item)?.overdue);
  const due = dueWords(item, t);
  return h(
    "li",
    { class: ["case", ACTIVE.has(item.state) ? "case-active" : "case-closed", late && "case-overdue", (item.reportRefs || [item.ref]).includes(linkedRef()) && "case-target"],
      id: `case-${item.ref}`,
      tabindex: "-1",
      dataset: { ref: item.ref, state: item.state, overdue: String(late), reports: JSON.stringify(item.reportRefs || [item.ref]) } },
    h("p", { class: "case-head" },
      h("strong", { class: "case-state" }, t(`cases.state.${item.state}`)), " · ", categories,
      late ? h("span", { class: "case-overdue-mark" }, ` · ${t("cases.overdue")}`) : null,
      item.item?.store ? h("span", { class: "case-store", dataset: { store: item.item.store } },
        ` · ${storeName(names, item.item.store)}`) : "",
      item.escalatedAt ? h("span", { class: "case-escalated" }, ` · ${t("cases.escalated")}`) : null,
      item.reports > 1 ? h("span", { class: "case-reports" }, ` · ${t("cases.reports", { count: item.reports })}`) : null),
    h("p", { class: "case-text" }, excerpt(item.item?.text || "")),
    h("p", { class: "case-meta" }, happened(item), " · ", h("span", { class: "case-owner" }, ownerWords(item.owner))),
    due ? h("p", { class: "case-due", title: formatTime(item.dueAt, t) }, due) : null,
    closureLines(item),
    h("div", { class: "case-actions" }, controls.filter((c) => !forms.includes(c))),
    forms,
    story,
  );
}

// The case's story, read when opened: owner (a manager granted its store; a typed name without
// accounts), notes with a field for one more, and its history from the audit log.
function storyBox(item) {
  const body = h("div", { class: "case-story-body" });
  const box = h("details", { class: "case-story", dataset: { ref: item.ref } }, h("summary", {}, t("cases.story")), body);
  let filled = false;
  const fill = () => {
    if (filled) return;
    filled = true;
    fillStory(item, body);
  };
  box.addEventListener("toggle", () => {
    if (box.open) {
      opened.add(item.ref);
      fill();
    } else opened.delete(item.ref);
  });
  if (opened.has(item.ref)) {
    box.open = true;
    fill();
  }
  return box;
}

async function fillStory(item, body) {
  const ref = encodeURIComponent(item.ref);
  const [detailRead, ownersRead] = await Promise.allSettled([getJson(`/cases/${ref}`),
    ACTIVE.has(item.state) ? getJson(`/cases/${ref}/owners`) : Promise.resolve({ people: [] })]);
  if (detailRead.status === "rejected") {
    replace(body, h("p", { class: "muted" }, t("cases.failed")));
    return;
  }
  const detail = detailRead.value;
  const people = ownersRead.status === "fulfilled" ? ownersRead.value.people : [];
  replace(body,
    ACTIVE.has(item.state) ? ownerControls(detail, people) : null,
    h("h3", { class: "case-story-head" }, t("cases.notes")),
    h("ul", { class: "case-notes" }, detail.notes.length
      ? detail.notes.map((n) => h("li", { class: "case-note" },
        h("span", { class: "muted" }, `${formatTime(n.at, t)} · ${n.author.name || t(`audit.actor.${n.author.kind}`)}: `),
        n.text))
      : h("li", { class: "muted" }, t("cases.noNotes"))),
    noteControls(detail),
    reportList(detail),
    h("h3", { class: "case-story-head" }, t("cases.history")),
    h("ul", { class: "case-history" }, detail.audit.map(historyRow)));
}

// The further reports that joined the case (ADR 0060): their times and texts, oldest first.
function reportList(detail) {
  const reports = detail.reportItems || [];
  if (!reports.length) return null;
  return [
    h("h3", { class: "case-story-head" }, t("cases.reportTexts")),
    h("ul", { class: "case-reports-list" }, reports.map((r) => h("li", { class: "case-report", dataset: { ref: r.ref } },
      h("span", { class: "muted" }, `${formatTime(r.timestamp, t)}: `), r.text))),
  ];
}

function ownerControls(detail, people) {
  const id = `case-owner-${detail.ref.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const button = h("button", { type: "button", class: "btn btn-small", dataset: { action: "owner" } },
    t("cases.setOwner"));
  let field;
  if (me && me.signedIn) {
    field = h("select", { id, class: "case-owner-select" },
      h("option", { value: "" }, t("cases.noOwner")),
      people.map((p) => h("option", { value: p.id, selected: detail.owner?.id === p.id }, p.name)));
    button.addEventListener("click", () =>
      setOwner(detail, field.value ? { accountId: field.value } : { name: "" }, button));
  } else {
    field = h("input", { id, type: "text", maxlength: "100", class: "case-owner-name", value: detail.owner?.name || "" });
    button.addEventListener("click", () => setOwner(detail, { name: field.value.trim() }, button));
  }
  return h("div", { class: "case-owner-row" }, h("label", { class: "label", for: id }, t("cases.ownerLabel")), field, button);
}

function noteControls(detail) {
  const id = `case-note-${detail.ref.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const text = h("textarea", { id, rows: "2", class: "case-note-text" });
  const key = `${detail.ref} note`;
  text.value = drafts.get(key) || "";
  text.addEventListener("input", () => drafts.set(key, text.value));
  const button = h("button", { type: "button", class: "btn btn-small", dataset: { action: "note" } }, t("cases.addNote"));
  button.addEventListener("click", async () => {
    if (!text.value.trim()) {
      say(t("cases.noteNeeded"), "error");
      text.focus();
      return;
    }
    button.disabled = true;
    const response = await request(`/cases/${encodeURIComponent(detail.ref)}/notes`, {
      method: "POST", body: { text: text.value.trim(), actorName: el.actor.value.trim() || null },
    }).catch(() => null);
    if (response && response.ok) drafts.delete(key);
    say(response && response.ok ? t("cases.noteSaved") : t("cases.failed"), response && response.ok ? "info" : "error");
    await load();
  });
  return h("div", { class: "case-note-row" }, h("label", { class: "label", for: id }, t("cases.note")), text, button);
}

function historyRow(entry) {
  const who = entry.actor.name || t(`audit.actor.${entry.actor.kind}`);
  const key = `audit.action.${entry.action}`;
  const what = t.has(key) ? t(key) : t("audit.action.other", { action: entry.action });
  const detail = entry.action === "case.root_cause"
    ? [causeLabel(entry.newValue), entry.reason].filter(Boolean).join(" – ")
    : entry.action === "case.assign" ? entry.newValue || t("cases.noOwner") : entry.reason;
  return h("li", { class: "case-history-entry", dataset: { action: entry.action } },
    `${formatTime(entry.at, t)} · ${what} · ${who}`, detail ? ` · ”${detail}”` : "");
}

async function setOwner(item, body, button) {
  button.disabled = true;
  const response = await request(`/cases/${encodeURIComponent(item.ref)}/owner`, {
    method: "PUT",
    body: { ...body, actorName: el.actor.value.trim() || null },
    headers: { "If-Match": `"${item.revision}"` },
  }).catch(() => null);
  report(response);
  await load();
}

function report(response) {
  if (response && response.ok) say(t("cases.done"));
  else if (response && response.status === 412) say(t("cases.stale"), "error");
  else say(t("cases.failed"), "error");
}

function auditRow(entry) {
  const who = entry.actor.name || t(`audit.actor.${entry.actor.kind}`);
  // every action in words; one this page does not know yet says so in words too, never as a key
  const key = `audit.action.${entry.action}`;
  const what = t.has(key) ? t(key) : t("audit.action.other", { action: entry.action });
  const parts = [formatTime(entry.at, t), entry.ref, what, who].filter(Boolean); // a sign-in has no case ref
  return h("li", { class: "audit-entry", dataset: { action: entry.action, ref: entry.ref || "" } },
    parts.join(" · "), entry.reason ? ` · ”${entry.reason}”` : "");
}

async function act(item, action, reason, button, closure = {}) {
  if (action === "dismiss" && !reason.trim()) {
    say(t("cases.reasonNeeded"), "error");
    return;
  }
  button.disabled = true;
  const body = { action, actorName: el.actor.value.trim() || null, ...closure };
  if (reason.trim()) body.reason = reason.trim();
  const response = await request(`/cases/${encodeURIComponent(item.ref)}/actions`, {
    method: "POST",
    body,
    headers: { "If-Match": `"${item.revision}"` },
  }).catch(() => null);
  if (response && response.ok) drafts.delete(`${item.ref} closure`);
  report(response);
  await load();
}

/** The case a link names (`#case=live:desk-3f…`), or null. */
function linkedRef() {
  const match = /^#case=(.+)$/.exec(window.location.hash);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}

// The case a ref names: its own item's, or one of the reports that joined it (a reopening page links the report).
function caseRowOf(ref) {
  return [...el.list.querySelectorAll("li.case")].find((li) => JSON.parse(li.dataset.reports || "[]").includes(ref));
}

// The linked case: shown even past the first few, its story opened, brought into view and marked.
async function land() {
  const ref = linkedRef();
  if (!ref) return;
  let row = caseRowOf(ref);
  if (row && row.hidden) {
    showAll = true;
    opened.add(row.dataset.ref);
    await load();
    row = caseRowOf(ref);
  }
  if (!row) {
    say(t("cases.notFound", { ref }), "error");
    return;
  }
  for (const other of el.list.querySelectorAll("li.case-target")) other.classList.remove("case-target");
  row.classList.add("case-target");
  const story = row.querySelector("details.case-story");
  if (story && !story.open) story.open = true;
  row.scrollIntoView({ block: "start" });
  row.focus({ preventScroll: true });
}

async function load() {
  const [casesRead, auditRead] = await Promise.allSettled([
    getJson("/cases", { params: { store: pageStore(), limit: 1000 } }), // a store's page: its cases only
    getJson("/audit", { params: { limit: 50 } }),
  ]);
  if (casesRead.status === "rejected") {
    if (casesRead.reason.status === 404) show(el.section, false); // not the manager's page here: nothing to show
    return;
  }
  const cases = casesRead.value;
  show(el.section, true);
  // what needs acting on first (open, then acknowledged, each the most serious then oldest first as the
  // server sends them),
  // then what is done; the list stops after a few active cases until the reader asks for all
  // an overdue case first within its state, by the page's clock (the words beside it read the same)
  const active = overdueFirst(cases.cases.filter((c) => ACTIVE.has(c.state)));
  const closed = cases.cases.filter((c) => !ACTIVE.has(c.state));
  const open = active.filter((c) => c.state === "open").length;
  el.summary.textContent = t("cases.summary", { open, acknowledged: active.length - open, closed: closed.length });
  el.summary.dataset.kind = open ? "open" : "calm";
  clear(el.list);
  if (!cases.cases.length) el.list.append(h("li", { class: "empty" }, t("cases.empty")));
  const rows = [...active, ...closed].map(caseRow);
  rows.forEach((row, index) => {
    row.hidden = !showAll && index >= SHOWN_AT_FIRST;
    el.list.append(row);
  });
  show(el.more, rows.some((row) => row.hidden));
  el.more.textContent = t("cases.showAll", { n: rows.length });
  // the change log is the chain's: a store's manager is refused it (403) and sees their cases only
  show(el.auditBox, auditRead.status === "fulfilled");
  if (auditRead.status !== "fulfilled") return;
  clear(el.audit);
  if (!auditRead.value.entries.length) el.audit.append(h("li", { class: "empty" }, t("audit.empty")));
  for (const entry of auditRead.value.entries) el.audit.append(auditRow(entry));
}

async function start() {
  try {
    const schema = await getJson("/schema");
    if (schema && schema.language) t = translator(schema.language, schema.timezone); // as the report beside it
    rootCauses = (schema && schema.caseRootCauses) || {};
  } catch {
    // the browser's language stays
  }
  applyStatic(el.section, t);
  el.more.addEventListener("click", () => {
    showAll = true;
    load();
  });
  // a signed-in person is named by their account: the typed name is for a page nobody signed in to
  me = await getJson("/auth/me").catch(() => null);
  names = await storeNames();
  show(el.actorWrap, !(me && me.signedIn));
  const target = linkedRef();
  if (target) opened.add(target);
  await load();
  await land();
  window.addEventListener("hashchange", () => {
    const ref = linkedRef();
    if (ref) opened.add(ref);
    land();
  });
}

start();
