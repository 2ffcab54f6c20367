// The management view: the report for a chosen window; the saved snapshot only when the server fails.
// The server answers at once with the deterministic report and marks the prose still being written
// as pending; this page shows it, then asks again (If-None-Match) and fills each theme's prose in as
// it arrives. A new selection aborts everything the old one was waiting for, and the old window's
// numbers leave the page before the new window's request is sent. The report is the one inbox (desk
// entries and imported feedback, counted per channel); once settled it is asked again every
// REFRESH_MS with If-None-Match, so a desk save shows without a reload. Counts and groups open the
// drill-in: their items from GET /report/items, a page at a time (drill-in.js).

import { getJson, request } from "./api.js";
import { alertSplit, renderCharts, renderSeries } from "./charts.js";
import { byId, h, show } from "./dom.js";
import { applyStatic, formatDate, formatTime, initialLanguage, toDate, translator, useTimeZone } from "./i18n.js";
import { makeLabels } from "./labels.js";
import { refusalText } from "./problems.js";
import { alertsBlock, alertsHeading, chartSections, moderationBlock, sourceItem, themeCard } from "./report-view.js";
import { halvesNote, issueCards } from "./issues-view.js";
import { countButton, DrillIn } from "./drill-in.js";
import { showSavedEntry } from "./saved-entry.js";
import { filterParams, filtersFromSearch, searchWithFilters } from "./filters.js";
import { reportWindow } from "./window.js";
import { pageStore as storeOfPage, storeNames as askStoreNames } from "./stores.js";

const POLL_MS = 1500;
const REFRESH_MS = 10000; // a settled report is asked again this often (304 while nothing changed)
// past the server's bound for waiting work (``llm.until``) by this much, the page stops waiting by itself
const UNTIL_GRACE_MS = 3 * POLL_MS;

const state = {
  t: translator(initialLanguage()),
  schema: null,
  labels: null,
  controller: null,
  shown: null, // {report, mode}
  params: null, // the window and filters of the report shown: what a drill-in narrows further
};

let storeNames = {}; // {id: name} of the reader's stores (FI_STORES): cards, cases and filters name stores by it

const el = {
  form: byId("window-form"),
  select: byId("window-select"),
  fromWrap: byId("custom-from-wrap"),
  toWrap: byId("custom-to-wrap"),
  from: byId("custom-from"),
  to: byId("custom-to"),
  refresh: byId("refresh-btn"),
  print: byId("print-btn"),
  csv: byId("csv-link"),
  printHead: byId("print-head"),
  filters: byId("filters"),
  filterInputs: [...document.querySelectorAll("[data-filter]")],
  filterNote: byId("filter-note"),
  badge: byId("mode-badge"),
  status: byId("report-status"),
  report: byId("report"),
  meta: byId("report-meta"),
  channels: byId("report-channels"),
  advice: byId("report-advice"),
  adviceOpen: byId("advice-open"),
  alerts: byId("report-alerts"),
  charts: byId("report-charts"),
  series: byId("report-series"),
  chainTrendHead: byId("chain-trend-head"),
  issues: byId("report-issues"),
  issuesHeading: byId("issues-heading"),
  issuesList: byId("issues-list"),
  issuesNote: byId("issues-note"),
  briefMoreWindow: byId("brief-more-window"), // the brief's link down here says which period it leads to
  themes: byId("report-themes"),
  themesHeading: byId("themes-heading"),
  themesList: byId("themes-list"),
  proseNote: byId("prose-note"),
  moderation: byId("themes-moderation"),
  dialog: byId("sources-dialog"),
  dialogTitle: byId("sources-title"),
  dialogList: byId("sources-list"),
  dialogClose: byId("sources-close"),
  scope: byId("store-scope"),
  chain: byId("chain-view"),
  chainRows: byId("chain-rows"),
};

const drillIn = new DrillIn({
  dialog: byId("drill-dialog"), title: byId("drill-title"), scope: byId("drill-scope"), status: byId("drill-status"),
  list: byId("drill-list"),
  more: byId("drill-more"), close: byId("drill-close"),
}, () => ({ t: state.t, labels: state.labels, storeNames })); // an item names its store as the cards do

/** The view's filters in words ("Vakavuus: Korkea · Haku: maito"), as their controls show them. */
function filterScope() {
  const parts = [];
  for (const input of el.filterInputs) {
    const value = input.value.trim();
    if (!value) continue;
    const label = document.querySelector(`label[for="${input.id}"]`);
    const shown = input.tagName === "SELECT" ? input.options[input.selectedIndex].textContent : value;
    parts.push(`${label ? label.textContent : input.dataset.filter}: ${shown}`);
  }
  return parts.length ? state.t("drill.scope", { filters: parts.join(" · ") }) : "";
}

/** The items behind a count or a group: the report's window and filters, narrowed by ``narrowing``. */
function openDrill(title, narrowing, opener) {
  if (!state.params) return;
  drillIn.open(title, { ...state.params, ...narrowing }, opener, filterScope());
}

// The store this page reports on (`/?store=…`, a link of the chain view); null: the whole chain.
const pageStore = storeOfPage();

function say(text, kind = "info") {
  el.status.textContent = text || "";
  el.status.dataset.kind = kind;
}

function setLanguage(language) {
  if (state.t.lang === language && state.labels) return;
  state.t = translator(language, state.schema && state.schema.timezone); // the shop's days
  state.labels = makeLabels(state.schema, state.t);
  applyStatic(document, state.t);
  document.title = `${state.t("report.title")} — ${state.t("app.name")}`;
}

// ---------------------------------------------------------------- dialog with a theme's messages

let dialogOpener = null;

function openSources(title, sources, opener, unrated) {
  const ctx = { t: state.t, labels: state.labels, withChannel: true };
  dialogOpener = opener;
  el.dialogTitle.textContent = state.t("dialog.sources", { title });
  el.dialogList.replaceChildren(...sources.map((src) => withChange(sourceItem(src, ctx, { unrated }), src)));
  el.dialog.showModal();
  el.dialogClose.focus();
}

/** "Muokkaa tai poista" under an item of the report (ADR 0035): the corpus item, through the operator's
 * PATCH/DELETE /feedback/{id}; the server says who may. */
function withChange(item, src) {
  if (!src.feedbackId) return item;
  const box = h("div", { class: "saved-entry", hidden: true });
  const open = h("button", { type: "button", class: "btn btn-link" }, "Muokkaa tai poista");
  open.addEventListener("click", () => {
    open.hidden = true;
    showSavedEntry(box, src.feedbackId, src.text, { base: "/feedback", heading: "Merkintä" });
  });
  item.append(open, box);
  return item;
}

function closeSources() {
  if (el.dialog.open) el.dialog.close();
}

// ---------------------------------------------------------------- rendering

function metaLine(report) {
  const t = state.t;
  const parts = [
    t("meta.window", { from: formatDate(report.windowFrom, t), to: formatDate(report.windowTo, t) }),
    t("meta.items", { n: report.totalItems || 0 }),
  ];
  if (report.truncated) {
    parts.push(typeof report.itemsInWindow === "number" && report.itemsInWindow > report.totalItems
      ? t("meta.truncated", { n: report.totalItems, m: report.itemsInWindow })
      : t("meta.truncatedUnknown", { n: report.totalItems }));
  }
  if (report.structureFailedCount) parts.push(t("meta.unstructured", { n: report.structureFailedCount }));
  if (report.needsReviewCount) parts.push(t("meta.review", { n: report.needsReviewCount }));
  if (report.droppedClaimCount) parts.push(t("meta.dropped", { n: report.droppedClaimCount }));
  if (report.actionDroppedCount) parts.push(t("meta.actions", { n: report.actionDroppedCount }));
  if (report.llmFallbackCount) parts.push(t("meta.fallbacks", { n: report.llmFallbackCount }));
  return parts;
}

/** How many entries of the view a rule disagrees with (the clerk's value kept, ADR 0045), as a button to
 *  the manager's list of them: each with the clerk's value, the rule's choice and its words. */
function renderAdvice(report, mode) {
  const t = state.t;
  const n = report.ruleAdviceCount || 0;
  el.adviceOpen.replaceChildren(n ? countButton(t("advice.count", { n }),
    (button) => openDrill(t("drill.advice"), { advice: "true" }, button), { advice: String(n) }) : "");
  show(el.advice, n > 0 && mode === "live");
}

/** The view's items per channel, each a button to its list, and the whole list (the one inbox). */
function channelLine(report) {
  const t = state.t;
  const counts = report.channelCounts || {};
  // on paper a count is text: the buttons are not printed (app.css), the same words are
  const parts = ["live", "corpus"].filter((name) => name in counts).flatMap((name) => [countButton(
    t(`channels.${name}`, { n: counts[name] }), (button) => openDrill(t(`channel.${name}`), { channel: name }, button),
    { channel: name, count: String(counts[name]) }), h("span", { class: "print-inline" }, t(`channels.${name}`, { n: counts[name] }))]);
  if (!parts.length) return [];
  const all = countButton(t("drill.all"), (button) => openDrill(t("drill.all"), {}, button), { channel: "all" });
  return [h("span", { class: "muted" }, `${t("channels.label")}:`), ...parts, all];
}

function pendingCount(report) {
  const llm = report.llm || {};
  return llm.status === "pending" ? (llm.pending || []).length : 0;
}

/** Still changing: prose being written, or the alert screen still asking. */
function stillWorking(report) {
  return (report.llm || {}).status === "pending";
}

function screenCounts(llm) {
  const screen = llm.screen || {};
  return { screened: screen.screened || 0, candidates: screen.candidates || 0, confirmed: screen.confirmed || 0 };
}

/** The reason the model's work waits or stopped, in words (``llm.stopped``: busy, rate, unavailable, …). */
function waitReason(reason) {
  const t = state.t;
  return t.has(`wait.${reason}`) ? t(`wait.${reason}`) : reason;
}

function workingText(report) {
  const llm = report.llm || {};
  const t = state.t;
  if (llm.stopped) { // shed: the pending work waits for the model, at most until ``llm.until``
    const until = llm.until ? formatTime(llm.until, t, false) : "–";
    return t("status.waiting", { reason: waitReason(llm.stopped), until, ...screenCounts(llm) });
  }
  const n = pendingCount(report);
  if (n) return t("status.writing", { n });
  return t("status.screening", screenCounts(llm));
}

/** The line once nothing is pending: up to date, or what the model did not do and why, and when it is asked
 *  again; a model switched off says so. */
function settledText(report) {
  const llm = report.llm || {};
  const t = state.t;
  if (llm.status === "off") return [t("status.off"), "info"];
  if (!llm.stopped) return [t("status.live"), "ok"];
  const parts = [t("status.stopped", { reason: waitReason(llm.stopped) })];
  const screen = llm.screen;
  if (screen && screen.stopped && screen.screened < screen.candidates) parts.push(t("status.unscreened", screenCounts(llm)));
  if (llm.retryAt) parts.push(t("status.retryAt", { time: formatTime(llm.retryAt, t, false) }));
  return [parts.join(" "), "warn"];
}

/** The report as final when the server's own bound (``llm.until``) passed and it still says pending: the page
 *  stops waiting, and every part still pending shows as automatic for the reason it waited for. */
function givenUp(report) {
  const llm = report.llm || {};
  const reason = llm.stopped || "busy";
  const settle = (theme) => (theme && theme.prose && theme.prose.status === "pending"
    ? { ...theme, prose: { status: "automatic", reason } } : theme);
  const screen = llm.screen ? { ...llm.screen, running: false, stopped: llm.screen.stopped || reason } : llm.screen;
  return {
    ...report,
    themes: (report.themes || []).map(settle),
    overall: settle(report.overall),
    llm: { ...llm, status: "done", pending: [], until: null, stopped: reason, screen },
  };
}

function pastBound(report) {
  const until = (report.llm || {}).until;
  return Boolean(until) && Date.now() > toDate(until).getTime() + UNTIL_GRACE_MS;
}

function render(report, mode) {
  if (report.language) setLanguage(report.language);
  if (report.timezone) useTimeZone(state.t, report.timezone);
  state.shown = { report, mode };
  el.report.dataset.items = String(report.totalItems ?? "");
  el.report.dataset.windowFrom = report.windowFrom || "";
  el.report.dataset.prose = pendingCount(report) ? "pending" : "done";
  el.report.dataset.llm = (report.llm || {}).status || "";
  const t = state.t;
  const alertLine = ((report.series && report.series.lines) || []).find((line) => line.key === "alert");
  const alertTotal = alertLine ? alertLine.currentTotal : (report.alerts || []).length; // the window's, not the list's
  const llm = report.llm || {};
  const waiting = llm.status === "pending" ? llm.stopped || null : null; // what a pending card waits for
  const ctx = { t, labels: state.labels, openSources, drill: openDrill, withChannel: true, storeNames, alertTotal, waiting };
  el.badge.textContent = t(mode === "snapshot" ? "badge.snapshot" : "badge.live");
  el.badge.dataset.mode = mode;
  show(el.badge, true);
  el.report.dataset.mode = mode;

  // the export link says what it downloads: this view's items, all of them (the CSV streams every row)
  el.csv.textContent = mode === "live" ? t("export.csvAll", { n: report.totalItems || 0 }) : t("export.csv");
  el.csv.title = t("export.csvWhat");
  el.printHead.textContent = t("print.head", { time: formatTime(new Date(), t), zone: report.timezone || "UTC" });
  const generated = report.generatedAt ? formatTime(report.generatedAt, t) : "";
  // the brief counts seven days, this view its own window: the link between them names this one's dates
  el.briefMoreWindow.textContent = t("brief.moreWindow",
    { from: formatDate(report.windowFrom, t), to: formatDate(report.windowTo, t) });
  el.meta.replaceChildren(...metaLine(report).map((part) => h("span", { class: "meta-part" }, part)),
    generated ? h("span", { class: "meta-part" }, t("meta.generated", { time: generated })) : null);
  const channels = channelLine(report);
  el.channels.replaceChildren(...channels);
  show(el.channels, channels.length > 0 && mode === "live");
  el.report.dataset.live = String((report.channelCounts || {}).live ?? "");
  renderAdvice(report, mode);
  // the whole alert list is one click away: the brief above says what needs acting on
  el.alerts.replaceChildren(h("details", { class: "alerts-box", id: "alerts-box" },
    h("summary", { "data-alerts": String(alertTotal) }, alertsHeading(alertTotal, (report.alerts || []).length, t,
      { from: formatDate(report.windowFrom, t), to: formatDate(report.windowTo, t) })),
    alertsBlock(report.alerts, ctx)));
  if (window.location.hash === "#alerts-box" && !state.alertsOpened) {
    // the brief's "7 hälytystä" links here: the list opens, once, where the reader lands
    state.alertsOpened = true;
    const box = document.getElementById("alerts-box");
    box.open = true;
    box.scrollIntoView();
  }

  const themes = (report.themes || []).filter((th) => th.category !== "overall");
  const rated = themes.filter((th) => !th.unrated);
  const unrated = themes.filter((th) => th.unrated);
  renderCharts(el.charts, {
    sections: chartSections(rated, state.labels), labels: state.labels, t, sentimentCounts: report.sentimentCounts,
    severityCounts: report.severityCounts,
    period: `${formatDate(report.windowFrom, t)} – ${formatDate(report.windowTo, t)}`,
    alerts: report.alertCases ? alertSplit(report.alerts, report.alertCases, report.digestAlertItems, alertTotal) : null,
  });
  renderSeries(el.series, report.series, t);
  // the report echoes the filters it applied (``filters``); until the server narrows, the page says so
  const asked = Object.keys(filterParams(currentFilters()));
  const applied = report.filters && typeof report.filters === "object" ? Object.keys(report.filters) : [];
  const ignored = mode === "live" && asked.some((field) => !applied.includes(field));
  el.filterNote.textContent = ignored ? t("filters.notApplied") : "";
  show(el.filterNote, ignored);
  const issues = report.issues || [];
  el.issuesHeading.textContent = t("issues.heading", { n: issues.length });
  el.issuesNote.textContent = halvesNote(report, t);
  el.issuesList.replaceChildren(...issueCards(issues, ctx));
  show(el.issues, issues.length > 0);
  el.themesHeading.textContent = t("themes.heading", { n: rated.length });
  // said once for the whole view, not as a reason under every card
  const automatic = (report.llm || {}).prose === "automatic" && rated.length > 0;
  el.proseNote.textContent = automatic ? t("prose.automatic") : "";
  show(el.proseNote, automatic);
  el.themesList.replaceChildren(...(rated.length
    ? rated.map((th) => themeCard(th, ctx, "dialog"))
    : [h("p", { class: "muted" }, t("themes.none"))]));
  el.moderation.replaceChildren(moderationBlock(unrated, ctx, "dialog") || "");
  show(el.themes, true);
  show(el.report, true);
}

function renderNothing() {
  state.shown = null;
  el.report.dataset.items = "";
  el.report.dataset.windowFrom = "";
  el.report.dataset.prose = "";
  show(el.badge, false);
  el.meta.replaceChildren();
  el.channels.replaceChildren();
  show(el.channels, false);
  el.adviceOpen.replaceChildren();
  show(el.advice, false);
  el.alerts.replaceChildren();
  el.charts.replaceChildren();
  show(el.charts, false);
  el.series.replaceChildren();
  show(el.series, false);
  show(el.themes, false);
  show(el.issues, false);
  el.report.dataset.mode = "none";
}

// ---------------------------------------------------------------- loading

async function fetchSnapshot() {
  try {
    const snapshot = await getJson("/report/snapshot");
    return snapshot && typeof snapshot === "object" ? snapshot : null;
  } catch {
    return null;
  }
}

async function loadReport() {
  const t = () => state.t;
  const win = reportWindow(el.select.value, { fromDay: el.from.value, toDay: el.to.value, zone: state.t.timeZone });
  if (win.error) {
    say(t()(win.error), "warn");
    (el.select.value === "custom" ? (el.from.value ? el.to : el.from) : el.select).focus();
    return;
  }
  if (state.controller) state.controller.abort();
  const controller = new AbortController();
  state.controller = controller;
  el.refresh.disabled = true;
  el.report.setAttribute("aria-busy", "true");
  // Never leave one window's numbers under another window's selection while the new one loads.
  if (state.shown) renderNothing();

  // The deterministic report arrives in milliseconds, so the saved snapshot (of whatever window it
  // was saved for) is only a fallback when the server does not deliver, never a stand-in meanwhile.
  say(t()("status.compiling"), "busy");
  const params = { from: win.from.toISOString(), to: win.to.toISOString(), ...filterParams(currentFilters()) };
  if (pageStore !== null) params.store = pageStore;
  state.params = params;
  el.csv.href = `/report/items.csv?${new URLSearchParams(params)}`;
  renderScope(null);
  show(el.chain, false);
  try {
    const response = await request("/report", { params, signal: controller.signal });
    if (response.status === 403) { // a store outside the reader's roles: said so, never "check the connection"
      renderNothing();
      say(t()("store.forbidden"), "warn");
      return;
    }
    if (response.status === 400 || response.status === 422) {
      const detail = await refusalText(response, t());
      if (!state.shown) renderNothing();
      say(t()(response.status === 422 ? "filters.refused" : "status.badWindow", { detail }), "warn");
      return;
    }
    if (!response.ok) throw new Error(`report ${response.status}`);
    const report = await response.json();
    if (controller.signal.aborted) return;
    render(report, "live");
    el.refresh.disabled = false;
    el.report.removeAttribute("aria-busy");
    if (pageStore === null) loadChain(params, controller.signal);
    else renderScope(pageStore);
    const etag = await followProse(report, response.headers.get("etag"), params, controller.signal);
    await keepFresh(etag, params, controller.signal);
  } catch (error) {
    if (controller.signal.aborted || (error && error.name === "AbortError")) return;
    const fallback = await fetchSnapshot();
    if (controller.signal.aborted) return;
    if (fallback) {
      render(fallback, "snapshot");
      say(t()("status.fallback", { time: formatTime(fallback.generatedAt, t()) }), "warn");
    } else {
      renderNothing();
      say(t()("status.nothing"), "warn");
    }
  } finally {
    if (state.controller === controller) {
      state.controller = null;
      el.refresh.disabled = false;
      el.report.removeAttribute("aria-busy");
    }
  }
}

// ---------------------------------------------------------------- the chain view (stores side by side)


function renderScope(store) {
  if (store === null) {
    show(el.scope, false);
    return;
  }
  const t = state.t;
  el.scope.replaceChildren(
    h("span", {}, t("chain.scope", { name: storeNames[store] || store })), " · ",
    h("a", { href: "/" }, t("chain.whole")),
  );
  show(el.scope, true);
}

function severityMix(counts) {
  const labels = state.labels;
  const order = [...labels.severityOrder].reverse(); // the most serious first
  const keys = [...order.filter((key) => counts[key]), ...Object.keys(counts).filter((key) => !order.includes(key))];
  return keys.map((key) => `${labels.severity(key)} ${counts[key]}`).join(" · ") || "–";
}

function chainRow(row, withTrend) {
  const t = state.t;
  const link = h("a", { href: `/?store=${encodeURIComponent(row.store)}`, "data-store": row.store }, row.name);
  // in the reader's own way of writing a decimal (1,1 % in Finnish)
  const share = new Intl.NumberFormat(t.locale, { maximumFractionDigits: 1 }).format(row.alertRate * 100);
  const rate = row.items ? `${share} % (${row.alertItems})` : "–";
  const trend = row.direction && t.has(`trend.${row.direction}`) ? t(`trend.${row.direction}`) : row.direction || "–";
  return h("tr", { "data-store": row.store },
    h("th", { scope: "row" }, link), h("td", {}, String(row.items)), h("td", {}, rate),
    h("td", {}, severityMix(row.severityCounts || {})), withTrend ? h("td", {}, trend) : null);
}

/** The stores of the same window side by side; nothing shown for a deployment without stores. */
async function loadChain(params, signal) {
  let view;
  try {
    view = await getJson("/report/stores", { params, signal }); // the same filters: the stores of this view
  } catch {
    return; // the report itself is on the page; the comparison is extra
  }
  if (signal.aborted || !view || !Array.isArray(view.stores) || !view.stores.length) return;
  storeNames = { ...storeNames, ...Object.fromEntries(view.stores.map((row) => [row.store, row.name])) };
  // a column of dashes says nothing: the direction shows when some store's period before was recorded
  const withTrend = view.stores.some((row) => row.direction);
  el.chainTrendHead.hidden = !withTrend;
  el.chainRows.replaceChildren(...view.stores.map((row) => chainRow(row, withTrend)));
  show(el.chain, true);
}

async function loadStoreNames() {
  storeNames = { ...(await askStoreNames()), ...storeNames };
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new DOMException("aborted", "AbortError"));
    }, { once: true });
  });
}

/** Ask again until no prose is pending and the alert screen is done (or the server's bound for waiting work
 *  passed); each change re-renders the report, and the status line says what is waited for, then how it ended. */
async function followProse(report, etag, params, signal) {
  let current = report;
  while (stillWorking(current)) {
    if (pastBound(current)) { // the server should have settled by now: end here rather than spin
      current = givenUp(current);
      render(current, "live");
      break;
    }
    say(workingText(current), "busy");
    await sleep(POLL_MS, signal);
    let response;
    try {
      response = await request("/report", { params, signal, headers: etag ? { "If-None-Match": etag } : {} });
    } catch (error) {
      if (signal.aborted || (error && error.name === "AbortError")) throw error;
      continue; // a dropped connection while waiting: the report on the page stays valid, ask again
    }
    if (signal.aborted) return;
    if (response.status === 304 || !response.ok) continue;
    const next = await response.json();
    if (signal.aborted) return;
    etag = response.headers.get("etag");
    current = next;
    render(current, "live");
  }
  say(...settledText(current));
  return etag;
}

/** Ask again every REFRESH_MS while the page is shown (a 304 costs nothing); a change re-renders, and
 *  prose it brings is followed as on a load. Ends when a new selection aborts ``signal``. */
async function keepFresh(etag, params, signal) {
  for (;;) {
    await sleep(REFRESH_MS, signal);
    if (document.hidden) continue;
    let response;
    try {
      response = await request("/report", { params, signal, headers: etag ? { "If-None-Match": etag } : {} });
    } catch (error) {
      if (signal.aborted || (error && error.name === "AbortError")) throw error;
      continue; // offline for a moment: the report on the page stays, ask again at the next turn
    }
    if (response.status === 304 || !response.ok) continue;
    const next = await response.json();
    if (signal.aborted) return;
    render(next, "live");
    etag = await followProse(next, response.headers.get("etag"), params, signal);
  }
}

// ---------------------------------------------------------------- filters (in the URL)

function currentFilters() {
  const filters = {};
  for (const input of el.filterInputs) filters[input.dataset.filter] = input.value;
  return filters;
}

/** Each select's options from /schema, in the domain's order, with its labels. */
function fillFilterOptions() {
  const sc = state.schema || {};
  const labels = state.labels;
  const choices = {
    category: [sc.categories || [], labels.category],
    issue: [sc.issues || [], labels.issue],
    severity: [sc.severities || [], labels.severity],
    type: [sc.types || [], labels.type],
    sentiment: [sc.sentiments || [], labels.sentiment],
    source: [sc.sources || [], labels.source],
    alert: [["any", ...(sc.alertCategories || [])], (key) => (key === "any" ? state.t("filters.anyAlert") : labels.alert(key))],
    channel: [["live", "corpus"], (key) => state.t(`badge.${key}-channel`)],
  };
  for (const input of el.filterInputs) {
    const choice = choices[input.dataset.filter];
    if (!choice || input.tagName !== "SELECT") continue;
    const [keys, label] = choice;
    input.replaceChildren(h("option", { value: "" }, state.t("filters.all")),
      ...keys.map((key) => h("option", { value: key }, label(key))));
  }
}

/** The store filter: the chain's stores by name (the reader's reach), "all stores" first. */
function fillStoreOptions() {
  const input = el.filterInputs.find((each) => each.dataset.filter === "store");
  if (!input || input.tagName !== "SELECT") return;
  input.replaceChildren(h("option", { value: "" }, state.t("filters.storeAll")),
    ...Object.entries(storeNames).map(([id, name]) => h("option", { value: id }, name)));
}

function applyUrlFilters() {
  const filters = filtersFromSearch(window.location.search);
  for (const input of el.filterInputs) {
    const value = filters[input.dataset.filter] || "";
    if (input.tagName === "SELECT" && value && ![...input.options].some((o) => o.value === value)) {
      input.append(h("option", { value }, value)); // a shared link with a value this domain does not list
    }
    input.value = value;
  }
  if (Object.keys(filters).length) el.filters.open = true;
}

function filtersChanged() {
  const search = searchWithFilters(window.location.search, currentFilters());
  window.history.replaceState(null, "", `${window.location.pathname}${search}${window.location.hash}`);
  loadReport();
}

function syncCustom() {
  const custom = el.select.value === "custom";
  show(el.fromWrap, custom);
  show(el.toWrap, custom);
}

async function boot() {
  setLanguage(state.t.lang);
  el.form.addEventListener("submit", (event) => {
    event.preventDefault();
    filtersChanged();
  });
  el.select.addEventListener("change", () => {
    syncCustom();
    if (el.select.value === "custom") el.from.focus();
    else loadReport();
  });
  el.dialogClose.addEventListener("click", closeSources);
  el.print.addEventListener("click", () => window.print());
  // on paper every alert is shown whole and every series drawn: the alert list, each closed message and the
  // folded series open for the print and close after it (the moderation block stays closed)
  let opened = [];
  window.addEventListener("beforeprint", () => {
    opened = [...el.report.querySelectorAll(
      "details.alerts-box:not([open]), details.alert-message:not([open]), details.series-more:not([open])")];
    for (const d of opened) d.open = true;
  });
  window.addEventListener("afterprint", () => {
    for (const d of opened) d.open = false;
    opened = [];
  });
  el.dialog.addEventListener("close", () => {
    if (dialogOpener && dialogOpener.isConnected) dialogOpener.focus();
    dialogOpener = null;
  });
  el.dialog.addEventListener("click", (event) => {
    if (event.target === el.dialog) closeSources(); // a click on the backdrop
  });
  syncCustom();
  try {
    state.schema = await getJson("/schema");
  } catch {
    state.schema = null;
  }
  state.labels = null;
  setLanguage(state.schema ? state.schema.language : state.t.lang);
  await loadStoreNames();
  fillFilterOptions();
  fillStoreOptions();
  applyUrlFilters();
  // a select at once; a text field on leaving it, or on Enter (which submits the form)
  for (const input of el.filterInputs) input.addEventListener("change", filtersChanged);
  loadReport();
}

boot();
