// The case list of the management view: open first, oldest first, with the actions each state allows,
// and the change log. The case routes are the manager's (operator-only until accounts exist): where
// they answer 404 the section stays hidden. Every change sends the revision it was read at (If-Match);
// a 412 means someone else was first, and the list is read again.

import { getJson, request } from "./api.js";
import { byId, clear, h, show } from "./dom.js";
import { applyStatic, formatTime, initialLanguage, translator } from "./i18n.js";

const ACTIONS = {
  open: ["acknowledge", "dismiss"],
  acknowledged: ["handle", "dismiss"],
  handled: ["reopen"],
  dismissed: ["reopen"],
};
const EXCERPT_CHARS = 160;

// the domain's language, as the rest of the page (/schema); the browser's until it is known
let t = translator(initialLanguage());
const el = {
  section: byId("cases"),
  actor: byId("cases-actor"),
  status: byId("cases-status"),
  list: byId("cases-list"),
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

function caseRow(item) {
  const reason = h("input", { type: "text", maxlength: "1000", class: "case-reason", "aria-label": t("cases.reason"),
    placeholder: t("cases.reason") });
  const buttons = (ACTIONS[item.state] || []).map((action) => {
    const button = h("button", { type: "button", class: "btn", dataset: { action } }, t(`cases.act.${action}`));
    button.addEventListener("click", () => act(item, action, reason.value, button));
    return button;
  });
  const categories = (item.item?.alertCategories || []).map((c) => t(`alert.${c}`)).join(", ");
  return h(
    "li",
    { class: "case", dataset: { ref: item.ref, state: item.state } },
    h("p", { class: "case-head" },
      h("strong", { class: "case-state" }, t(`cases.state.${item.state}`)), " · ", categories,
      item.item?.store ? ` · ${item.item.store}` : "",
      item.escalatedAt ? h("span", { class: "case-escalated" }, ` · ${t("cases.escalated")}`) : null),
    h("p", { class: "case-text" }, excerpt(item.item?.text || "")),
    h("p", { class: "case-meta" }, t("cases.opened", { time: formatTime(item.openedAt, t) }),
      item.owner ? ` · ${t("cases.owner", { name: item.owner.name })}` : ""),
    h("div", { class: "case-actions" }, buttons, (ACTIONS[item.state] || []).includes("dismiss") ? reason : null),
  );
}

function auditRow(entry) {
  const who = entry.actor.name || t(`audit.actor.${entry.actor.kind}`);
  const what = t(`audit.action.${entry.action}`);
  return h("li", { class: "audit-entry", dataset: { action: entry.action, ref: entry.ref || "" } },
    `${formatTime(entry.at, t)} · ${entry.ref} · ${what} · ${who}`, entry.reason ? ` · ”${entry.reason}”` : "");
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
    getJson("/cases"), getJson("/audit", { params: { limit: 50 } }),
  ]);
  if (casesRead.status === "rejected") {
    if (casesRead.reason.status === 404) show(el.section, false); // not the manager's page here: nothing to show
    return;
  }
  const cases = casesRead.value;
  show(el.section, true);
  clear(el.list);
  if (!cases.cases.length) el.list.append(h("li", { class: "empty" }, t("cases.empty")));
  for (const item of cases.cases) el.list.append(caseRow(item));
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
    if (schema && schema.language) t = translator(schema.language);
  } catch {
    // the browser's language stays
  }
  applyStatic(el.section, t);
  await load();
}

start();
