// The management view: the report for a chosen window; the saved snapshot only when the server fails.
// The server answers at once with the deterministic report and marks the prose still being written
// as pending; this page shows it, then asks again (If-None-Match) and fills each theme's prose in as
// it arrives. A new selection aborts everything the old one was waiting for, and the old window's
// numbers leave the page before the new window's request is sent.

import { getJson, request } from "./api.js";
import { renderCharts } from "./charts.js";
import { byId, h, show } from "./dom.js";
import { applyStatic, formatDate, formatTime, initialLanguage, translator } from "./i18n.js";
import { makeLabels } from "./labels.js";
import { refusalText } from "./problems.js";
import { alertsBlock, chartSections, moderationBlock, sourceItem, themeCard } from "./report-view.js";
import { reportWindow } from "./window.js";

const POLL_MS = 1500;

const state = {
  t: translator(initialLanguage()),
  schema: null,
  labels: null,
  controller: null,
  shown: null, // {report, mode}
};

const el = {
  form: byId("window-form"),
  select: byId("window-select"),
  fromWrap: byId("custom-from-wrap"),
  toWrap: byId("custom-to-wrap"),
  from: byId("custom-from"),
  to: byId("custom-to"),
  refresh: byId("refresh-btn"),
  badge: byId("mode-badge"),
  status: byId("report-status"),
  report: byId("report"),
  meta: byId("report-meta"),
  alerts: byId("report-alerts"),
  charts: byId("report-charts"),
  themes: byId("report-themes"),
  themesHeading: byId("themes-heading"),
  themesList: byId("themes-list"),
  moderation: byId("themes-moderation"),
  dialog: byId("sources-dialog"),
  dialogTitle: byId("sources-title"),
  dialogList: byId("sources-list"),
  dialogClose: byId("sources-close"),
  scope: byId("store-scope"),
  chain: byId("chain-view"),
  chainRows: byId("chain-rows"),
};

// The store this page reports on (`/?store=…`, a link of the chain view); null: the whole chain.
const pageStore = new URLSearchParams(globalThis.location ? globalThis.location.search : "").get("store");

function say(text, kind = "info") {
  el.status.textContent = text || "";
  el.status.dataset.kind = kind;
}

function setLanguage(language) {
  if (state.t.lang === language && state.labels) return;
  state.t = translator(language);
  state.labels = makeLabels(state.schema, state.t);
  applyStatic(document, state.t);
  document.title = `${state.t("report.title")} — ${state.t("app.name")}`;
}

// ---------------------------------------------------------------- dialog with a theme's messages

let dialogOpener = null;

function openSources(title, sources, opener, unrated) {
  const ctx = { t: state.t, labels: state.labels };
  dialogOpener = opener;
  el.dialogTitle.textContent = state.t("dialog.sources", { title });
  el.dialogList.replaceChildren(...sources.map((src) => sourceItem(src, ctx, { unrated })));
  el.dialog.showModal();
  el.dialogClose.focus();
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

function pendingCount(report) {
  const llm = report.llm || {};
  return llm.status === "pending" ? (llm.pending || []).length : 0;
}

function render(report, mode) {
  if (report.language) setLanguage(report.language);
  state.shown = { report, mode };
  el.report.dataset.items = String(report.totalItems ?? "");
  el.report.dataset.windowFrom = report.windowFrom || "";
  el.report.dataset.prose = pendingCount(report) ? "pending" : "done";
  const t = state.t;
  const ctx = { t, labels: state.labels, openSources };
  el.badge.textContent = t(mode === "snapshot" ? "badge.snapshot" : "badge.live");
  el.badge.dataset.mode = mode;
  show(el.badge, true);
  el.report.dataset.mode = mode;

  const generated = report.generatedAt ? formatTime(report.generatedAt, t) : "";
  el.meta.replaceChildren(...metaLine(report).map((part) => h("span", { class: "meta-part" }, part)),
    generated ? h("span", { class: "meta-part" }, t("meta.generated", { time: generated })) : null);
  el.alerts.replaceChildren(alertsBlock(report.alerts, ctx));

  const themes = (report.themes || []).filter((th) => th.category !== "overall");
  const rated = themes.filter((th) => !th.unrated);
  const unrated = themes.filter((th) => th.unrated);
  renderCharts(el.charts, {
    sections: chartSections(rated, state.labels), labels: state.labels, t, sentimentCounts: report.sentimentCounts,
  });
  el.themesHeading.textContent = t("themes.heading", { n: rated.length });
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
  el.alerts.replaceChildren();
  el.charts.replaceChildren();
  show(el.charts, false);
  show(el.themes, false);
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
  const win = reportWindow(el.select.value, { fromDay: el.from.value, toDay: el.to.value });
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
  const params = { from: win.from.toISOString(), to: win.to.toISOString() };
  if (pageStore !== null) params.store = pageStore;
  renderScope(null);
  show(el.chain, false);
  try {
    const response = await request("/report", { params, signal: controller.signal });
    if (response.status === 400) {
      const detail = await refusalText(response, t());
      if (!state.shown) renderNothing();
      say(t()("status.badWindow", { detail }), "warn");
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
    await followProse(report, response.headers.get("etag"), params, controller.signal);
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

let storeNames = {};

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

function chainRow(row) {
  const t = state.t;
  const link = h("a", { href: `/?store=${encodeURIComponent(row.store)}`, "data-store": row.store }, row.name);
  const rate = row.items ? `${Math.round(row.alertRate * 1000) / 10} % (${row.alertItems})` : "–";
  const trend = row.direction && t.has(`trend.${row.direction}`) ? t(`trend.${row.direction}`) : row.direction || "–";
  return h("tr", { "data-store": row.store },
    h("th", { scope: "row" }, link), h("td", {}, String(row.items)), h("td", {}, rate),
    h("td", {}, severityMix(row.severityCounts || {})), h("td", {}, trend));
}

/** The stores of the same window side by side; nothing shown for a deployment without stores. */
async function loadChain(params, signal) {
  let view;
  try {
    view = await getJson("/report/stores", { params: { from: params.from, to: params.to }, signal });
  } catch {
    return; // the report itself is on the page; the comparison is extra
  }
  if (signal.aborted || !view || !Array.isArray(view.stores) || !view.stores.length) return;
  storeNames = Object.fromEntries(view.stores.map((row) => [row.store, row.name]));
  el.chainRows.replaceChildren(...view.stores.map(chainRow));
  show(el.chain, true);
}

async function loadStoreName(store) {
  try {
    const bound = await getJson("/live/desk-store", { params: { store } });
    if (bound && bound.name) storeNames[store] = bound.name;
  } catch {
    // an unknown store: the report's own 400 says so
  }
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

/** Ask again until no theme's prose is pending; each change re-renders the same window's report. */
async function followProse(report, etag, params, signal) {
  const t = () => state.t;
  let current = report;
  while (pendingCount(current)) {
    say(t()("status.writing", { n: pendingCount(current) }), "busy");
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
  say(t()("status.live"), "ok");
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
    loadReport();
  });
  el.select.addEventListener("change", () => {
    syncCustom();
    if (el.select.value === "custom") el.from.focus();
    else loadReport();
  });
  el.dialogClose.addEventListener("click", closeSources);
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
  if (pageStore !== null) await loadStoreName(pageStore);
  loadReport();
}

boot();
