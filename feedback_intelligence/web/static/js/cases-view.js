// The case list of the management view: open first, the most serious alert first, then oldest first (the
// server's order), each naming its store, with the actions each state allows,
// and the change log. The case routes are the manager's (operator-only until accounts exist): where
// they answer 404 the section stays hidden. Every change sends the revision it was read at (If-Match);
// a 412 means someone else was first, and the list is read again.

import { getJson, request } from "./api.js";
import { byId, clear, h, show } from "./dom.js";
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

function caseRow(item) {
  const buttons = (ACTIONS[item.state] || []).map((action) => {
    if (action === "dismiss") return dismissControls(item);
    const button = h("button", { type: "button", class: "btn btn-small", dataset: { action } },
      t(`cases.act.${action}`));
    button.addEventListener("click", () => act(item, action, "", button));
    return button;
  });
  const categories = (item.item?.alertCategories || []).map((c) => t(`alert.${c}`)).join(", ");
  return h(
    "li",
    { class: ["case", ACTIVE.has(item.state) ? "case-active" : "case-closed"],
      dataset: { ref: item.ref, state: item.state } },
    h("p", { class: "case-head" },
      h("strong", { class: "case-state" }, t(`cases.state.${item.state}`)), " · ", categories,
      item.item?.store ? h("span", { class: "case-store", dataset: { store: item.item.store } },
        ` · ${storeName(names, item.item.store)}`) : "",
      item.escalatedAt ? h("span", { class: "case-escalated" }, ` · ${t("cases.escalated")}`) : null),
    h("p", { class: "case-text" }, excerpt(item.item?.text || "")),
    h("p", { class: "case-meta" }, t("cases.opened", { time: formatTime(item.openedAt, t) }),
      item.owner ? ` · ${t("cases.owner", { name: item.owner.name })}` : ""),
    h("div", { class: "case-actions" }, buttons),
  );
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

async function act(item, action, reason, button) {
  if (action === "dismiss" && !reason.trim()) {
    say(t("cases.reasonNeeded"), "error");
    return;
  }
  button.disabled = true;
  const body = { action, actorName: el.actor.value.trim() || null };
  if (reason.trim()) body.reason = reason.trim();
  const response = await request(`/cases/${encodeURIComponent(item.ref)}/actions`, {
    method: "POST",
    body,
    headers: { "If-Match": `"${item.revision}"` },
  }).catch(() => null);
  if (response && response.ok) say(t("cases.done"));
  else if (response && response.status === 412) say(t("cases.stale"), "error");
  else say(t("cases.failed"), "error");
  await load();
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
  const active = cases.cases.filter((c) => ACTIVE.has(c.state));
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
  } catch {
    // the browser's language stays
  }
  applyStatic(el.section, t);
  el.more.addEventListener("click", () => {
    showAll = true;
    load();
  });
  // a signed-in person is named by their account: the typed name is for a page nobody signed in to
  const me = await getJson("/auth/me").catch(() => null);
  names = await storeNames();
  show(el.actorWrap, !(me && me.signedIn));
  await load();
}

start();
