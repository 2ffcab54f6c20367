// Themes never change under a manager's eyes without a note (ADR 0063). A row saved with the rules'
// structure (an import, a desk's "interpret later") is refined by the model afterwards, and its theme may
// change; each such change is in the item's history, and this says beside the report how many happened
// since the report on the page was read, so a number that moved on the next refresh is explained.

import { getJson } from "./api.js";
import { byId, show } from "./dom.js";
import { formatShortTime, initialLanguage, translator } from "./i18n.js";
import { pageStore } from "./stores.js";

const ASK_EVERY_MS = 30000;

const note = byId("refined-note");
const report = byId("report");
let t = translator(initialLanguage());
let since = new Date().toISOString(); // the moment the report on the page was read

async function ask() {
  const store = pageStore();
  try {
    const body = await getJson("/report/refined", { params: { since, ...(store ? { store } : {}) } });
    note.dataset.refined = String(body.refined);
    note.textContent = body.refined ? t("refined.note", { n: body.refined, time: formatShortTime(since, t) }) : "";
    show(note, body.refined > 0);
  } catch {
    // not a manager here, or the server is away: the report's own status line says so
  }
}

async function start() {
  try {
    const schema = await getJson("/schema");
    if (schema && schema.language) t = translator(schema.language, schema.timezone);
  } catch {
    // the browser's language stays
  }
  // a report rendered anew (a refresh, another period) shows the refined themes: count from then on
  new MutationObserver(() => {
    if (!report.dataset.items) return;
    since = new Date().toISOString();
    show(note, false);
    note.dataset.refined = "0";
  }).observe(report, { attributes: true, attributeFilter: ["data-items"] });
  setInterval(ask, ASK_EVERY_MS);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") ask();
  });
}

start();
