// The clerk's desk: type → Tulkitse (interpret) → accept or correct → save; and the live segment.

import { getJson, request } from "./api.js";
import { renderCharts } from "./charts.js";
import { byId, h, replace, show } from "./dom.js";
import { applyStatic, formatTime, initialLanguage, translator } from "./i18n.js";
import { LANGUAGE_CHOICES, makeLabels } from "./labels.js";
import { refusalText } from "./problems.js";
import { loadMine, renderMine } from "./my-entries.js";
import { showSavedEntry } from "./saved-entry.js";
import {
  alertsBlock, chartSections, moderationBlock, narrativeOrigin, proseStatus, sentimentPills, themeCard, themesFromItems,
} from "./report-view.js";
import { fetchWithShedRetry, pollDelay, SHED_DEFAULTS } from "./retry-policy.js";

const SCHEMA_RETRY_MS = 3000;
const LIVE_WINDOW_DAYS = 7;
const LATER_POLL_MS = 3000; // while an entry this desk saved for later waits for the model
const FIELDS = ["category", "theme", "severity", "type", "sentiment", "language"];

const state = {
  t: translator(initialLanguage()),
  // The store this desk saves for (FI_DESK_STORE or ?store=, checked by /live/desk-store): undefined until
  // known, null for none; `storeRefused` stops every save (a desk never saves for a store it does not know).
  store: undefined,
  storeName: null,
  storeRefused: null,
  schema: null,
  labels: null,
  maxChars: 800, // the model reads at most this (textMaxChars): Tulkitse needs the text within it
  storeMaxChars: 800, // the longest text stored (textStoreMaxChars): by hand or "later"
  entry: null, // {id, text, model: structure|null, manual, proposal, guards, sentimentTouched, alertCategories}
  interpreting: false,
  interpretAbort: null, // AbortController of the interpretation in flight: the clerk's own choice stops it
  saving: false,
  // live segment
  segmentLoading: false,
  segmentQueued: false,
  liveVersion: null,
  reportRendered: false,
  segmentFailed: false,
  lastItems: null,
  lastReport: null,
  lastMine: null, // this clerk's entries as last loaded, re-rendered when the shop's clock becomes known
  pollTimer: null,
  laterIds: new Set(), // entries this desk saved for later: shown until and after the model's turn
  laterCleared: null, // the text the clerk chose to save "later" after the personal-data warning
};

const el = {
  conn: byId("conn-status"),
  deskStore: byId("desk-store"),
  text: byId("feedback-text"),
  counter: byId("char-counter"),
  over: byId("text-over"),
  entryForm: byId("entry-form"),
  interpret: byId("interpret-btn"),
  manual: byId("manual-btn"),
  later: byId("later-btn"),
  entryMessage: byId("entry-message"),
  review: byId("review"),
  reviewHeading: byId("review-heading"),
  reviewText: byId("review-text"),
  reviewAlerts: byId("review-alerts"),
  reviewForm: byId("review-form"),
  save: byId("save-btn"),
  cancel: byId("cancel-btn"),
  saveMessage: byId("save-message"),
  liveStatus: byId("live-status"),
  liveTotals: byId("live-totals"),
  livePending: byId("live-pending"),
  liveLater: byId("live-later"),
  liveSummary: byId("live-summary"),
  liveAlerts: byId("live-alerts"),
  liveCharts: byId("live-charts"),
  liveSections: byId("live-sections"),
  live: byId("live"),
  mine: { section: byId("mine"), list: byId("mine-list") },
  input: (name) => byId(`f-${name}`),
  note: (name) => byId(`n-${name}`),
  guardNote: (name) => byId(`g-${name}`),
};

// ---------------------------------------------------------------- small helpers

/** Show a message; `about` says what it is about ("text" by default, "model" for busy/down), so an edit
 * of the text can clear the messages it makes stale and keep those it does not. */
function say(target, text, kind = "info", about = "text") {
  target.textContent = text || "";
  target.dataset.kind = kind;
  target.dataset.about = about;
}

function newEntryId() {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === "function") return `desk-${c.randomUUID()}`;
  // randomUUID needs a secure context; a desk on plain http inside a shop LAN still gets a v4 UUID.
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `desk-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function setLanguage(language) {
  state.t = translator(language, state.schema && state.schema.timezone); // the shop's clock
  applyStatic(document, state.t);
  document.title = `${state.t("desk.title")} — ${state.t("app.name")}`;
  state.labels = makeLabels(state.schema, state.t);
  byId("l-category").textContent = state.labels.categoryFieldTitle;
  updateCounter();
  if (state.store !== undefined || state.storeRefused) showStore();
}

/** Longer than the model reads: Tulkitse waits for a shorter text; by hand and "later" still save it whole. */
function tooLong() {
  return el.text.value.length > state.maxChars;
}

/** Longer than the service stores: nothing can take it until it is shortened. */
function tooLongToStore() {
  return el.text.value.length > state.storeMaxChars;
}

/** The counter, and a text over a limit kept whole but marked: what it can still be used for, never cut. */
function updateCounter() {
  const n = el.text.value.length;
  const max = state.maxChars;
  const store = state.storeMaxChars;
  const over = n > max;
  const overStore = n > store;
  const t = state.t;
  el.counter.textContent = overStore ? t("entry.counterOver", { n, max: store })
    : t(over ? "entry.counterLong" : "entry.counter", { n, max });
  el.counter.classList.toggle("near", !over && n >= max * 0.9);
  el.counter.classList.toggle("over", over);
  el.text.setAttribute("aria-invalid", String(overStore));
  el.over.textContent = overStore ? t("entry.tooLongToStore", { over: n - store, max: store })
    : over ? t("entry.tooLong", { over: n - max, max }) : "";
  show(el.over, over);
  if (!state.entry && !state.interpreting && el.entryMessage.dataset.about !== "model") {
    // The ways to keep a long text: by hand, or saved now with the model reading its first part.
    show(el.manual, over && !overStore);
    show(el.later, over && !overStore);
  }
  updateInterpretButton();
}

function updateInterpretButton() {
  el.interpret.disabled = !state.schema || state.interpreting || !!state.entry || tooLong();
}

// ---------------------------------------------------------------- schema (boot)

function fillSelect(select, keys, labelOf, placeholder) {
  const options = [];
  if (placeholder) options.push(h("option", { value: "" }, placeholder));
  for (const key of keys) options.push(h("option", { value: key }, labelOf(key)));
  select.replaceChildren(...options);
}

function applySchema(schema) {
  state.schema = schema;
  if (Number.isInteger(schema.textMaxChars) && schema.textMaxChars > 0) state.maxChars = schema.textMaxChars;
  state.storeMaxChars = Number.isInteger(schema.textStoreMaxChars) && schema.textStoreMaxChars >= state.maxChars
    ? schema.textStoreMaxChars : state.maxChars; // an older service stores no more than it reads
  setLanguage(schema.language);
  const { labels, t } = state;
  fillSelect(el.input("category"), schema.categories || [], labels.category, t("field.choose"));
  fillSelect(el.input("severity"), schema.severities || [], labels.severity);
  fillSelect(el.input("type"), schema.types || [], labels.type);
  fillSelect(el.input("sentiment"), labels.sentimentOrder, labels.sentiment);
  fillSelect(el.input("language"), languageChoices(), labels.language);
  rerenderSegment();
}

let schemaTriedNow;
// Settles after the first /schema answer or failure: the segment's first load waits for it, so its
// times and its "today" are the shop's from the start (a slower /schema re-renders them when it lands).
const schemaTried = new Promise((resolve) => {
  schemaTriedNow = resolve;
});

/** The connection line follows real reachability: the browser's own offline state, and whether the last
 * request got an answer. Red (down) until an answer comes again; then the segment heals at once. */
function setReachable(reachable) {
  const offline = globalThis.navigator && globalThis.navigator.onLine === false;
  if (reachable && !offline) {
    if (el.conn.dataset.state === "ok" || !state.schema) return; // the first /schema says "connected"
    el.conn.dataset.state = "ok";
    say(el.conn, state.t("status.ready"), "ok");
    loadSegment();
    return;
  }
  el.conn.dataset.state = "down";
  say(el.conn, state.t(offline ? "status.offline" : "status.unreachable"), "error");
}

function watchReachability() {
  globalThis.addEventListener("fi:reachability", (event) => setReachable(event.detail.reachable));
  globalThis.addEventListener("offline", () => setReachable(false));
  globalThis.addEventListener("online", () => checkVersion()); // back online: ask, and let the answer say
  if (globalThis.navigator && globalThis.navigator.onLine === false) setReachable(false);
}

// ---------------------------------------------------------------- the draft (kept until saved)

const DRAFT_KEY = `fi-desk-draft:${globalThis.location ? globalThis.location.pathname + globalThis.location.search : ""}`;

/** The text being typed is kept in this browser until it is saved: a reload, a closed tab or a lost
 * connection does not lose it (ADR 0046). Nothing leaves the browser. */
function saveDraft() {
  try {
    const text = el.text.value;
    if (text.trim()) globalThis.localStorage.setItem(DRAFT_KEY, text);
    else globalThis.localStorage.removeItem(DRAFT_KEY);
  } catch {
    /* storage off or full: the draft is simply not kept */
  }
}

function clearDraft() {
  try {
    globalThis.localStorage.removeItem(DRAFT_KEY);
  } catch {
    /* nothing kept */
  }
}

function restoreDraft() {
  let text = null;
  try {
    text = globalThis.localStorage.getItem(DRAFT_KEY);
  } catch {
    text = null;
  }
  if (!text || el.text.value) return;
  el.text.value = text;
  say(el.entryMessage, state.t("draft.restored"), "info");
}

async function loadSchema() {
  try {
    const schema = await getJson("/schema");
    const wasDown = el.conn.dataset.state === "down";
    applySchema(schema);
    say(el.conn, state.t("status.ready"), "ok");
    el.conn.dataset.state = "ok";
    updateInterpretButton();
    if (wasDown) loadSegment(); // the server is back: heal the live segment at once
  } catch {
    el.conn.dataset.state = "down";
    say(el.conn, state.t("status.schemaRetry"), "error");
    updateInterpretButton();
    setTimeout(loadSchema, SCHEMA_RETRY_MS);
  } finally {
    schemaTriedNow();
  }
}

// ---------------------------------------------------------------- the desk's store

const STORE_RETRY_MS = 3000;
let storeKnown = null; // resolves once the binding is known (or refused)

function pageStore() {
  const value = new URLSearchParams(globalThis.location ? globalThis.location.search : "").get("store");
  return value === null ? null : value;
}

function refusedReason() {
  const refused = state.storeRefused;
  return refused.key ? state.t(refused.key) : refused.text;
}

function showStore() {
  const t = state.t;
  if (state.storeRefused) {
    say(el.deskStore, t("store.refused", { reason: refusedReason() }), "error");
    show(el.deskStore, true);
  } else if (state.store) {
    say(el.deskStore, t("store.bound", { name: state.storeName || state.store }), "ok");
    show(el.deskStore, true);
  } else {
    show(el.deskStore, false);
  }
}

function loadDeskStore() {
  if (storeKnown) return storeKnown;
  storeKnown = new Promise((resolve) => {
    const attempt = async () => {
      const asked = pageStore();
      let response;
      try {
        response = await request("/live/desk-store", { params: { store: asked } });
      } catch {
        response = null;
      }
      if (response && response.ok) {
        const body = await response.json();
        state.store = body.id || null;
        state.storeName = body.name || null;
      } else if (response && response.status === 400) {
        const body = await response.json().catch(() => ({}));
        const code = body.codes && body.codes[0] ? body.codes[0].code : "";
        // the page's own words for an unknown store; the service's message for another refusal (store_bound)
        state.storeRefused = code === "store_unknown" ? { key: "store.unknown" } : { text: (body.errors || [""])[0] };
      } else {
        say(el.deskStore, state.t("store.retry"), "warn");
        show(el.deskStore, true);
        setTimeout(attempt, STORE_RETRY_MS);
        return;
      }
      showStore();
      resolve();
    };
    attempt();
  });
  return storeKnown;
}

/** The store fields of a save (none when the desk has no store); null when this desk may not save. */
async function storeFields() {
  await loadDeskStore();
  if (state.storeRefused) return null;
  return state.store ? { store: state.store } : {};
}

/** The `store` query of the live segment: this desk's own store only. */
function storeParams() {
  return state.store ? { store: state.store } : {};
}

// ---------------------------------------------------------------- interpret

async function onInterpret(event) {
  event.preventDefault();
  if (!state.schema || state.interpreting || state.entry) return;
  if (tooLong()) {
    el.text.focus();
    return;
  }
  const text = el.text.value.trim();
  show(el.manual, false);
  show(el.later, false);
  showLaterPersonalData(text, []);
  if (!text) {
    say(el.entryMessage, state.t("msg.empty"), "warn");
    el.text.focus();
    return;
  }
  state.interpreting = true;
  const abort = new AbortController();
  state.interpretAbort = abort;
  updateInterpretButton();
  el.text.readOnly = true;
  say(el.entryMessage, state.t("msg.working"), "busy");
  let result;
  try {
    result = await fetchWithShedRetry(
      () => request("/interpret", { method: "POST", body: { text }, signal: abort.signal }), {
        signal: abort.signal,
        // On the first shed the ways out are offered at once; the retries go on behind them, and a
        // proposal that still arrives fills the form unless the clerk has chosen meanwhile.
        onRetry: ({ attempt }) => {
          say(el.entryMessage, state.t("msg.retrying", { n: attempt, max: SHED_DEFAULTS.maxRetries }), "busy");
          show(el.manual, true);
          show(el.later, true);
        },
      });
  } catch (error) {
    if (error && error.name === "AbortError") return; // the clerk chose "by hand" or "later": theirs now
    throw error;
  } finally {
    state.interpreting = false;
    if (state.interpretAbort === abort) state.interpretAbort = null;
    updateInterpretButton();
  }
  el.text.readOnly = false;
  const t = state.t;
  switch (result.outcome) {
    case "ok": {
      let body = null;
      try {
        body = await result.response.json();
      } catch {
        body = null;
      }
      if (!body) {
        say(el.entryMessage, t("msg.failed", { status: result.response.status }), "error");
        break;
      }
      await startInterpreted(text, body);
      break;
    }
    case "busy":
      say(el.entryMessage, t("msg.busy"), "warn", "model");
      show(el.manual, true);
      show(el.later, true);
      break;
    case "unavailable":
      say(el.entryMessage, t("msg.unavailable"), "warn", "model");
      show(el.manual, true);
      show(el.later, true);
      break;
    case "rate_limited":
      say(el.entryMessage, t("msg.rateLimited"), "warn");
      break;
    case "network":
      say(el.entryMessage, t("msg.network"), "error");
      break;
    default: {
      const refused = [400, 413].includes(result.response.status);
      say(el.entryMessage, refused ? t("msg.rejected", { detail: await refusalText(result.response, t) })
        : t("msg.failed", { status: result.response.status }), "error");
    }
  }
  updateInterpretButton();
}

async function onManual() {
  if (tooLongToStore()) {
    el.text.focus();
    return;
  }
  const text = el.text.value.trim();
  if (!text) {
    say(el.entryMessage, state.t("msg.empty"), "warn");
    el.text.focus();
    return;
  }
  if (state.entry || el.manual.disabled) return;
  stopInterpreting();
  el.manual.disabled = true;
  try {
    startEntry(text, null, await fetchProposal(text));
  } finally {
    el.manual.disabled = false;
  }
}

/** The clerk chose another way while the page was still retrying: the late answer is not wanted. */
function stopInterpreting() {
  if (state.interpretAbort) state.interpretAbort.abort();
  state.interpretAbort = null;
  state.interpreting = false;
  el.text.readOnly = false;
}

/** Save now, interpret later: stored at once with rule-made fields; the model's turn comes when it has room. */
async function onLater() {
  if (tooLongToStore() || state.saving) return;
  const text = el.text.value.trim();
  const t = state.t;
  if (!text) {
    say(el.entryMessage, t("msg.empty"), "warn");
    el.text.focus();
    return;
  }
  stopInterpreting();
  // Personal data is said before this save as before any other: the rules find it without the model.
  if (state.laterCleared !== text) {
    el.later.disabled = true;
    const proposal = await fetchProposal(text).finally(() => { el.later.disabled = false; });
    const found = (proposal && proposal.personalData) || [];
    if (found.length) {
      showLaterPersonalData(text, found);
      return;
    }
  }
  showLaterPersonalData(text, []);
  const id = newEntryId();
  state.saving = true;
  el.later.disabled = true;
  say(el.entryMessage, t("save.saving"), "busy");
  let response;
  try {
    const store = await storeFields();
    if (store === null) {
      say(el.entryMessage, t("store.refused", { reason: refusedReason() }), "error");
      return;
    }
    response = await request("/live/feedback", {
      method: "POST",
      body: { id, source: "desk", text, timestamp: new Date().toISOString(), structureLater: true, ...store },
    });
  } catch {
    say(el.entryMessage, t("save.network"), "error");
    return;
  } finally {
    state.saving = false;
    el.later.disabled = false;
  }
  if (response.status === 202 || response.status === 201 || response.status === 409) {
    state.laterIds.add(id);
    const saved = response.status === 409 ? null : await response.json().catch(() => null);
    el.text.value = "";
    clearDraft();
    updateCounter();
    show(el.manual, false);
    show(el.later, false);
    // A text longer than the model reads: it reads the first part, and the clerk is told so now.
    const parts = [text.length > state.maxChars ? t("later.savedLong", { max: state.maxChars }) : t("later.saved")];
    // with every slot kept from background work, "later" waits for the bounded wait: said, not hidden
    if (state.schema && state.schema.laterWaitsForFreeSlot) parts.push(t("later.waitsForGpu"));
    if (saved && saved.personalData && saved.personalData.length) parts.push(t("later.personalData"));
    say(el.entryMessage, parts.join(" "), "ok");
    el.text.focus();
    await loadSegment();
    schedulePoll();
    return;
  }
  if (response.status === 503) say(el.entryMessage, t("later.busy"), "warn");
  else if (response.status === 429) say(el.entryMessage, t("msg.rateLimited"), "warn");
  else {
    const refused = [400, 413].includes(response.status);
    say(el.entryMessage, refused ? t("save.rejected", { detail: await refusalText(response, t) })
      : t("save.failed", { status: response.status }), "error");
  }
}

/** "nimi «Matti Virtanen», puhelinnumero «040 123 4567»": each value kept on one line (no-break spaces), so
 * a phone number is never split across two; a value longer than the line still wraps (overflow-wrap). */
function personalDataList(found, t) {
  return found.map((f) => `${t(`pii.kind.${f.kind}`)} «${f.value.replace(/ /g, "\u00a0")}»`).join(", ");
}

/** Before a "later" save: the personal data in `text`, with one press to replace it by placeholders and
 * save, or to save it as typed (masked for others). An empty `found` clears the warning. */
function showLaterPersonalData(text, found) {
  const box = byId("later-pii");
  state.laterCleared = null;
  show(box, found.length > 0);
  if (!found.length) {
    box.replaceChildren();
    return;
  }
  const t = state.t;
  const list = personalDataList(found, t);
  const saveWith = (cleared) => {
    el.text.value = cleared;
    saveDraft();
    updateCounter();
    state.laterCleared = cleared;
    onLater();
  };
  const remove = h("button", { type: "button", class: "btn btn-primary pii-remove", id: "later-pii-remove" },
    t("pii.removeAndSave"));
  remove.addEventListener("click", () => {
    let cleared = text;
    for (const f of found) cleared = cleared.split(f.value).join(f.placeholder);
    saveWith(cleared);
  });
  const keep = h("button", { type: "button", class: "btn", id: "later-pii-keep" }, t("pii.saveAsTyped"));
  keep.addEventListener("click", () => saveWith(text));
  box.replaceChildren(h("p", {}, t("pii.found", { list })), h("p", { class: "hint" }, t("pii.masked")),
    h("div", { class: "actions" }, remove, keep));
  remove.focus();
}

/** The rules' proposal for `text` ({structure, alertCategories}; no model involved), or null when the
 * server cannot give one. */
async function fetchProposal(text) {
  try {
    const response = await request("/interpret/proposal", { method: "POST", body: { text } });
    if (!response.ok) return null;
    const body = await response.json();
    return body && body.structure ? body : null;
  } catch {
    return null; // the clerk still gets the form, with empty fields
  }
}

/** An interpretation without a usable structure is filled from the rules, like "fill in by hand". */
async function startInterpreted(text, interpretation) {
  const usable = !interpretation.failed && interpretation.structure;
  startEntry(text, interpretation, usable ? null : await fetchProposal(text));
}

/** The language codes the language field offers: the domain's own first. */
function languageChoices(extra) {
  const own = state.schema && state.schema.language;
  return [...new Set([own, ...LANGUAGE_CHOICES, extra].filter(Boolean))];
}

/** The tone a type implies in this domain (`typeSentiment` from /schema), or "" when it says none. */
function sentimentForType(type) {
  return (state.labels && state.labels.typeSentiment[type]) || "";
}

/** Begin reviewing one entry. `interpretation` is the /interpret body, or null for manual entry;
 * `proposal` is the rules' proposal a manual entry starts from (null: empty fields). */
function startEntry(text, interpretation, proposal = null) {
  const schema = state.schema;
  const structure = interpretation && !interpretation.failed && interpretation.structure ? interpretation.structure : null;
  state.entry = {
    id: newEntryId(),
    text,
    model: structure,
    manual: !structure,
    proposal: structure ? null : proposal,
    guards: (structure && interpretation.guards) || [],
    // which backend and model answered: sent back with the save, so the correction rates name them
    proposedBy: (structure && interpretation.proposedBy) || null,
    sentimentTouched: false,
    alertCategories: (interpretation && interpretation.alertCategories) || (proposal && proposal.alertCategories) || [],
    // per category the clerk might choose, the rule that would choose another (said before the save)
    categoryAdvice: (structure ? interpretation.categoryAdvice : proposal && proposal.categoryAdvice) || {},
    personalData: (interpretation && interpretation.personalData) || (proposal && proposal.personalData) || [],
  };
  const pick = (keys, wanted) => (keys.includes(wanted) ? wanted : keys[0] || "");
  const start = structure || (proposal && proposal.structure);
  const values = start
    ? {
      category: start.category || "", theme: start.theme || "",
      severity: start.severity, type: start.type,
      sentiment: start.sentiment || sentimentForType(start.type), language: start.language || schema.language,
    }
    : {
      category: "", theme: "",
      severity: pick(schema.severities || [], "medium"), type: pick(schema.types || [], "other"),
      sentiment: sentimentForType(pick(schema.types || [], "other")), language: schema.language,
    };
  fillSelect(el.input("language"), languageChoices(values.language), state.labels.language);
  for (const name of FIELDS) {
    const input = el.input(name);
    if (input.tagName === "SELECT" && values[name] && ![...input.options].some((o) => o.value === values[name])) {
      // A model value the form does not list (should not happen: the server validates) — keep it visible.
      input.append(h("option", { value: values[name] }, values[name]));
    }
    input.value = values[name];
  }
  el.text.readOnly = true;
  el.reviewText.textContent = text;
  const t = state.t;
  el.reviewHeading.textContent = structure ? t("form.heading") : t("form.manualHeading");
  showGuardNotes(state.entry.guards);
  const alerts = state.entry.alertCategories;
  el.reviewAlerts.textContent = alerts.length
    ? `⚑ ${t("form.alerts", { list: alerts.map(state.labels.alert).join(", ") })}` : "";
  show(el.reviewAlerts, alerts.length > 0);
  showPersonalData();
  say(el.saveMessage, "");
  show(el.manual, false);
  show(el.later, false);
  show(el.review, true);
  refreshMarks();
  if (structure) say(el.entryMessage, t("msg.interpreted"), "ok");
  else if (interpretation) say(el.entryMessage, t(proposal ? "msg.modelFailedProposal" : "msg.modelFailed"), "warn");
  else say(el.entryMessage, t(proposal ? "msg.proposal" : "msg.manual"), "info");
  updateInterpretButton();
  el.reviewHeading.focus();
}

function fieldValue(name) {
  const value = el.input(name).value;
  return name === "theme" ? value.trim() : value;
}

function modelValue(name) {
  const model = state.entry && state.entry.model;
  if (!model) return null;
  if (name === "theme") return String(model.theme || "").trim();
  // A model that gave no tone implied the one its type carries: that is what the form showed.
  if (name === "sentiment") return model.sentiment || sentimentForType(model.type);
  return model[name];
}

function displayValue(name, value) {
  const labels = state.labels;
  if (name === "category") return labels.category(value);
  if (name === "severity") return labels.severity(value);
  if (name === "type") return labels.type(value);
  if (name === "sentiment") return labels.sentiment(value);
  if (name === "language") return labels.language(value);
  return value;
}

function fieldTitle(name) {
  return name === "category" ? state.labels.categoryFieldTitle : state.t(`field.${name}`);
}

/**
 * Mark the fields whose model value a check replaced with a neutral hint: the value came from the rules.
 * What the model said and why it was refused never reach the clerk (ADR 0022): they stay in the item's
 * notes for operators, in /metrics and in `feedctl eval`. The reason, in plain words, is the hint's tooltip.
 */
function showGuardNotes(guards) {
  const t = state.t;
  for (const name of FIELDS) {
    // prior_field is a domain's policy, not a fault of the model: it would say the same on every entry.
    const replaced = guards.filter((g) => g.field === name && g.reason !== "prior_field");
    const reasons = replaced.map((g) => {
      const key = `guard.reason.${g.reason}`;
      return t.has(key) ? t(key) : t("guard.reason.other", { code: g.reason });
    });
    el.guardNote(name).textContent = replaced.length ? t("guard.fromRules") : "";
    el.guardNote(name).title = reasons.length ? t("guard.why", { reason: reasons.join("; ") }) : "";
    show(el.guardNote(name), replaced.length > 0);
  }
}

/** Choosing a type sets the tone its type implies, unless the clerk has already picked a tone. */
function onTypeChange() {
  if (!state.entry || state.entry.sentimentTouched) return;
  const implied = sentimentForType(el.input("type").value);
  if (implied) el.input("sentiment").value = implied;
}

/** Personal data in the text, warned about before the save: one press replaces each with its placeholder
 * (what is saved is then the text without it); kept, other desks and the live report see it masked. */
function showPersonalData() {
  const box = byId("pii-warning");
  const found = state.entry ? state.entry.personalData : [];
  show(box, found.length > 0);
  if (!found.length) {
    box.replaceChildren();
    return;
  }
  const t = state.t;
  const list = personalDataList(found, t);
  const remove = h("button", { type: "button", class: "btn btn-primary pii-remove", id: "pii-remove" }, t("pii.remove"));
  remove.addEventListener("click", () => {
    let text = state.entry.text;
    for (const f of found) text = text.split(f.value).join(f.placeholder);
    state.entry.text = text;
    state.entry.personalData = [];
    el.reviewText.textContent = text;
    el.text.value = text;
    saveDraft();
    showPersonalData();
    say(el.saveMessage, t("pii.removed"), "ok");
    el.input("category").focus();
  });
  box.replaceChildren(h("p", {}, t("pii.found", { list })), h("p", { class: "hint" }, t("pii.masked")), remove);
}

/** The words a rule read, quoted: «puutarhaletkun», «vessat». */
function quotedWords(words) {
  return (words || []).map((w) => `«${w}»`).join(", ");
}

/** Under the category: the rule that would choose another for the chosen one, said before the save. The
 * clerk's choice is what is stored (ADR 0045); one press takes the rule's instead. */
function showRuleAdvice() {
  const box = byId("r-category");
  const chosen = fieldValue("category");
  const advice = state.entry && chosen ? state.entry.categoryAdvice[chosen] : null;
  const key = advice ? `${state.t.lang}|${chosen}|${advice.value}` : "";
  if (box.dataset.key === key) return; // unchanged: keep the button under the pointer
  box.dataset.key = key;
  show(box, !!advice);
  if (!advice) {
    box.replaceChildren();
    return;
  }
  const t = state.t;
  const take = h("button", { type: "button", class: "btn btn-small rule-advice-take" },
    t("advice.take", { value: state.labels.category(advice.value) }));
  take.addEventListener("click", () => {
    el.input("category").value = advice.value;
    onReviewEdit();
    el.input("category").focus();
  });
  box.replaceChildren(
    h("p", {}, t("advice.rule", {
      value: state.labels.category(advice.value), words: quotedWords(advice.words),
      rule: t.has(`advice.rule.${advice.rule}`) ? t(`advice.rule.${advice.rule}`) : advice.rule,
    })),
    h("p", { class: "hint" }, t("advice.kept", { chosen: state.labels.category(chosen) })), take);
}

/** Outline and annotate every field whose value differs from the model's suggestion. */
function refreshMarks() {
  showRuleAdvice();
  const t = state.t;
  for (const name of FIELDS) {
    const wrapper = el.input(name).closest(".field");
    const note = el.note(name);
    const model = modelValue(name);
    const corrected = model !== null && fieldValue(name) !== model;
    wrapper.classList.toggle("corrected", corrected);
    // Rebuild the note only when it changes: replacing a button under the pointer (a blur-triggered
    // "change" between mousedown and mouseup) would swallow the click on it.
    const key = corrected ? `${t.lang}|${model}` : "";
    if (note.dataset.key === key) continue;
    note.dataset.key = key;
    if (!corrected) {
      note.replaceChildren();
      continue;
    }
    const label = fieldTitle(name);
    const undo = h("button", { type: "button", class: "btn btn-small", "aria-label": t("field.restoreLabel",
      { field: label }) }, t("field.restore"));
    undo.addEventListener("click", () => {
      el.input(name).value = modelValue(name);
      // The tone followed the type the clerk chose; putting the model's type back puts its tone back too.
      if (name === "type" && !state.entry.sentimentTouched) el.input("sentiment").value = modelValue("sentiment");
      refreshMarks();
      el.input(name).focus();
    });
    note.replaceChildren(h("span", { class: "badge badge-corrected" }, t("field.corrected")),
      h("span", { class: "muted" }, t("field.model", { value: displayValue(name, model) || "—" })), undo);
  }
}

function endEntry({ clearText }) {
  state.entry = null;
  show(el.review, false);
  el.text.readOnly = false;
  if (clearText) el.text.value = "";
  for (const name of FIELDS) {
    el.input(name).closest(".field").classList.remove("corrected");
    el.note(name).replaceChildren();
    delete el.note(name).dataset.key;
  }
  showGuardNotes([]);
  showRuleAdvice();
  updateCounter();
  updateInterpretButton();
}

// ---------------------------------------------------------------- save

async function onSave(event) {
  event.preventDefault();
  const entry = state.entry;
  if (!entry || state.saving) return;
  const t = state.t;
  const accepted = {
    category: fieldValue("category"),
    theme: fieldValue("theme"),
    severity: fieldValue("severity"),
    type: fieldValue("type"),
    sentiment: fieldValue("sentiment") || null,
    language: fieldValue("language"),
  };
  if (!accepted.category) {
    say(el.saveMessage, t("save.chooseCategory", { field: state.labels.categoryFieldWord }), "warn");
    el.input("category").focus();
    return;
  }
  if (!accepted.severity || !accepted.type) {
    say(el.saveMessage, t("save.missing"), "error");
    return;
  }
  if (!accepted.theme) {
    say(el.saveMessage, t("save.themeEmpty"), "warn");
    el.input("theme").focus();
    return;
  }
  let corrections = null;
  if (entry.model) {
    corrections = FIELDS.filter((name) => (accepted[name] || null) !== (modelValue(name) || null))
      .map((name) => ({ field: name, modelValue: modelValue(name) || null, humanValue: accepted[name] }));
    if (!corrections.length) corrections = null;
  }
  const body = {
    id: entry.id,
    source: "desk",
    text: entry.text,
    timestamp: new Date().toISOString(),
    acceptedStructure: accepted,
    corrections,
    modelInterpretationFailed: !entry.model,
    proposedBy: entry.model ? entry.proposedBy : null,
  };
  state.saving = true;
  el.save.disabled = true;
  say(el.saveMessage, t("save.saving"), "busy");
  let response;
  try {
    const store = await storeFields();
    if (store === null) {
      say(el.saveMessage, t("store.refused", { reason: refusedReason() }), "error");
      return;
    }
    response = await request("/live/feedback", { method: "POST", body: { ...body, ...store } });
  } catch {
    say(el.saveMessage, t("save.network"), "error");
    return;
  } finally {
    state.saving = false;
    el.save.disabled = false;
  }
  if (response.status === 201 || response.status === 409) {
    const saved = response.status === 201 ? await response.json().catch(() => null) : null;
    endEntry({ clearText: true });
    clearDraft();
    say(el.entryMessage, savedMessage(saved, response.status), "ok");
    if (response.status === 201) { // muokkaa (every field), poista
      showSavedEntry(byId("saved-entry"), body.id, body.text,
        { structure: saved && saved.structure, ctx: { t: state.t, labels: state.labels, onChange: loadSegment } });
    }
    el.text.focus();
    loadSegment();
    return;
  }
  if (response.status === 503) say(el.saveMessage, t("save.busy"), "warn");
  else if (response.status === 429) say(el.saveMessage, t("msg.rateLimited"), "warn");
  else {
    const refused = [400, 413].includes(response.status);
    say(el.saveMessage, refused ? t("save.rejected", { detail: await refusalText(response, t) })
      : t("save.failed", { status: response.status }), "error");
  }
}

/** "Saved ✓", and what was kept where a rule disagreed: the clerk's value stands, the rule's is noted. */
function savedMessage(saved, status) {
  const t = state.t;
  if (status === 409) return t("save.dup");
  const advice = saved && saved.structure ? (saved.ruleAdvice || []).find((a) => a.field === "category") : null;
  if (!advice) return t("save.ok");
  return t("save.okAdvice", { chosen: state.labels.category(saved.structure.category),
    value: state.labels.category(advice.value) });
}

/** "Peruuta": back to the text as it was, to edit or interpret again; no verdict, no message left over. */
function onCancel() {
  endEntry({ clearText: false });
  say(el.entryMessage, "");
  say(el.saveMessage, "");
  el.text.focus();
}

/** Ctrl+Enter (Cmd+Enter on a Mac) submits the form it is pressed in: interpret, or save the review. */
function submitOnCtrlEnter(form) {
  return (event) => {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey) || event.isComposing) return;
    event.preventDefault();
    form.requestSubmit();
  };
}

/** A message about the text (empty, refused, busy, saved) no longer applies once the clerk edits it. */
function onTextInput() {
  saveDraft();
  if (!byId("later-pii").hidden) showLaterPersonalData("", []); // the warning was about another text
  if (!state.interpreting && !state.entry && !state.saving && el.entryMessage.dataset.about !== "model") {
    say(el.entryMessage, "");
  }
  updateCounter();
}

/** A refusal or reminder under the review form goes once the clerk changes a field. */
function onReviewEdit() {
  if (!state.saving) say(el.saveMessage, "");
  refreshMarks();
}

// ---------------------------------------------------------------- live segment

function segmentCtx() {
  if (!state.labels) state.labels = makeLabels(state.schema, state.t);
  return { t: state.t, labels: state.labels, openSources: null };
}

function renderTotals(total, unstructured) {
  const t = state.t;
  el.liveTotals.textContent = total ? t("live.totals", { n: total, m: unstructured }) : t("live.empty");
}

function renderSections(themes, ctx) {
  const rated = themes.filter((th) => !th.unrated);
  const unrated = themes.filter((th) => th.unrated);
  replace(el.liveSections, rated.map((th) => themeCard(th, ctx, "inline")), moderationBlock(unrated, ctx, "inline"));
}

/** Phase A: the stored entries, grouped at once (no model involved). */
function renderItems(items) {
  const ctx = segmentCtx();
  const themes = themesFromItems(items, ctx.labels);
  renderTotals(items.length, items.filter((i) => !i.structure || i.structureFailed).length);
  renderLater(items, ctx);
  renderCharts(el.liveCharts, { sections: chartSections(themes, ctx.labels), labels: ctx.labels, t: ctx.t });
  renderSections(themes, ctx);
}

/** Entries waiting for the model ("interpreted later"), and this desk's later entries once the model is done. */
function renderLater(items, ctx) {
  const t = ctx.t;
  const shown = items.filter((i) => i.pending || state.laterIds.has(i.id));
  show(el.liveLater, shown.length > 0);
  if (!shown.length) return;
  const rows = shown.map((i) => {
    const s = i.structure;
    const state_ = i.pending ? "pending" : (i.structureFailed ? "failed" : "ready");
    const fields = !i.pending && s
      ? h("span", { class: "later-fields" },
        `: ${ctx.labels.category(s.category)} · ${s.theme} · ${ctx.labels.severity(s.severity)}`)
      : null;
    return h("li", { class: `later-item later-${state_}`, "data-id": i.id, "data-state": state_ },
      h("span", { class: "later-text" }, i.text.length > 80 ? `${i.text.slice(0, 79)}…` : i.text),
      " — ", h("em", { class: "later-state" }, t(`later.${state_}`)), fields);
  });
  replace(el.liveLater, h("h3", {}, t("later.heading")), h("ul", { class: "later-list" }, ...rows));
}

/** Phase B: the live report (authoritative). */
function renderReport(report) {
  const ctx = segmentCtx();
  const t = ctx.t;
  renderTotals(report.totalItems || 0, report.structureFailedCount || 0);
  const overall = report.overall;
  if (overall) {
    el.liveSummary.replaceChildren(h("section", { class: "summary-box", "aria-label": t("live.summary") },
      h("h3", null, t("live.summary")),
      overall.title ? h("p", { class: "summary-title" }, overall.title) : null,
      h("p", { class: "theme-meta" }, [t("section.count", { n: overall.count || 0 }),
        overall.directionLabel ? t("section.trend", { label: overall.directionLabel }) : null].filter(Boolean).join(" · ")),
      sentimentPills(overall.sentimentCounts || report.sentimentCounts, ctx),
      overall.flaggedCount ? h("p", { class: "flag-warn" }, t("section.flagged", { n: overall.flaggedCount })) : null,
      h("div", { class: ["narrative", proseStatus(overall) === "pending" && "narrative-pending"] },
        narrativeOrigin(overall, ctx), h("p", null, overall.narrative || ""))));
  } else {
    el.liveSummary.replaceChildren();
  }
  el.liveAlerts.replaceChildren(report.totalItems ? alertsBlock(report.alerts, ctx) : "");
  const themes = report.themes || [];
  renderCharts(el.liveCharts, {
    sections: chartSections(themes, ctx.labels), labels: ctx.labels, t,
    directionLabel: overall ? overall.directionLabel : null,
  });
  renderSections(themes, ctx);
}

function mineCtx() {
  return { t: state.t, labels: segmentCtx().labels, params: storeParams(), onChange: () => loadSegment() };
}

function rerenderSegment() {
  if (state.lastReport) renderReport(state.lastReport);
  else if (state.lastItems) renderItems(state.lastItems);
  if (state.lastMine) renderMine(el.mine, state.lastMine, mineCtx());
}

/** A promise's outcome as a value, so a failure that is awaited later is never an unhandled rejection. */
function settle(promise) {
  return promise.then((value) => ({ ok: true, value }), (error) => ({ ok: false, error }));
}

async function loadSegmentOnce() {
  const t = () => state.t;
  const from = new Date(Date.now() - LIVE_WINDOW_DAYS * 86400000).toISOString();
  // The version is asked before the report, so an entry saved meanwhile shows up as a change later.
  const versionP = settle(getJson("/live/version"));
  await loadDeskStore(); // a store's desk shows its own store's entries
  await schemaTried; // the shop's clock (FI_TIMEZONE) decides where "today" begins and how times read
  const mineP = loadMine(el.mine, mineCtx()).then((items) => {
    state.lastMine = items; // null after a failure: its message stays until the next load
  });
  const itemsP = settle(getJson("/live/feedback", { params: { from, limit: 1000, ...storeParams() } }));
  const reportP = settle(getJson("/live/report", { params: { from, ...storeParams() } }));
  const items = await itemsP;
  if (items.ok) {
    state.lastItems = items.value;
    if (!state.lastReport && items.value.length === 0) el.liveTotals.textContent = t()("live.empty");
    else renderItems(items.value);
    say(el.livePending, t()("live.pending"));
    show(el.livePending, true);
  }
  const report = await reportP;
  const version = await versionP;
  await mineP;
  if (!report.ok && report.error && report.error.status === 403) {
    show(el.live, false); // the situation view is the managers' (a signed-in clerk has their own list above)
    if (version.ok && typeof version.value.version === "number") state.liveVersion = version.value.version;
    state.reportRendered = true;
    return;
  }
  show(el.livePending, false);
  if (report.ok && report.value) {
    if (report.value.language && !state.schema) setLanguage(report.value.language);
    state.lastReport = report.value;
    renderReport(report.value);
    state.reportRendered = true;
    state.segmentFailed = false;
    if (version.ok && typeof version.value.version === "number") state.liveVersion = version.value.version;
    say(el.liveStatus, t()("live.updated", { time: formatTime(new Date(), t(), false) }), "ok");
  } else {
    state.segmentFailed = true;
    say(el.liveStatus, t()(items.ok ? "live.reportFailed" : "live.unavailable"), "warn");
  }
}

/** Single flight: a request arriving during a load is remembered and run once afterwards. */
async function loadSegment() {
  if (state.segmentLoading) {
    state.segmentQueued = true;
    return;
  }
  state.segmentLoading = true;
  el.live.setAttribute("aria-busy", "true"); // assistive technology waits for the new figures
  try {
    do {
      state.segmentQueued = false;
      await loadSegmentOnce();
    } while (state.segmentQueued);
  } finally {
    state.segmentLoading = false;
    el.live.setAttribute("aria-busy", "false");
  }
}

async function checkVersion() {
  if (document.hidden || state.segmentLoading) return;
  try {
    const { version } = await getJson("/live/version");
    const moved = state.liveVersion !== null && version !== state.liveVersion;
    // The summary's prose is written in the background: ask again until it is no longer pending.
    const proseWaiting = !!(state.lastReport && state.lastReport.llm && state.lastReport.llm.status === "pending");
    if (moved || proseWaiting || !state.reportRendered || state.segmentFailed) await loadSegment();
  } catch {
    /* the next tick tries again */
  }
}

/** Is one of this desk's later entries still waiting for the model? Then look again soon. */
function laterWaiting() {
  return (state.lastItems || []).some((i) => i.pending && state.laterIds.has(i.id));
}

function schedulePoll() {
  clearTimeout(state.pollTimer);
  state.pollTimer = setTimeout(async () => {
    try {
      await checkVersion();
    } finally {
      schedulePoll();
    }
  }, state.laterIds.size && (laterWaiting() || !state.lastItems) ? LATER_POLL_MS : pollDelay(Math.random()));
}

// ---------------------------------------------------------------- boot

function boot() {
  state.maxChars = Number(el.text.dataset.maxChars) || 800;
  state.storeMaxChars = state.maxChars;
  setLanguage(state.t.lang);
  say(el.conn, state.t("status.connecting"), "busy");
  watchReachability();
  restoreDraft();
  updateCounter();
  el.text.addEventListener("input", onTextInput);
  el.entryForm.addEventListener("keydown", submitOnCtrlEnter(el.entryForm));
  el.reviewForm.addEventListener("keydown", submitOnCtrlEnter(el.reviewForm));
  el.entryForm.addEventListener("submit", onInterpret);
  el.manual.addEventListener("click", onManual);
  el.later.addEventListener("click", onLater);
  el.reviewForm.addEventListener("submit", onSave);
  el.reviewForm.addEventListener("input", onReviewEdit);
  el.reviewForm.addEventListener("change", onReviewEdit);
  el.input("type").addEventListener("change", onTypeChange);
  el.input("sentiment").addEventListener("change", () => {
    if (state.entry) state.entry.sentimentTouched = true;
  });
  el.cancel.addEventListener("click", onCancel);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) checkVersion();
  });
  loadSchema();
  loadDeskStore();
  loadSegment();
  schedulePoll();
}

boot();
