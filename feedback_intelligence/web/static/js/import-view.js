// The management view's import (ADR 0063): a manager of the chain uploads the form tool's CSV export, the
// server reads it by the very rules `feedctl load` reads a file by and answers a preview (the columns it
// found, the mapping it suggests, the first rows as they would be stored, the first problems in words);
// the manager adjusts the columns and the channel labels, runs it, and follows its progress. The page
// parses nothing itself: every rule is the server's, in one place. A run is a backfill unless unticked.

import { apiUrl, csrfToken, getJson } from "./api.js";
import { byId, h, show } from "./dom.js";
import { applyStatic, initialLanguage, toDate, translator } from "./i18n.js";

const FIELDS = ["text", "timestamp", "source", "store", "id"];
const BACKLOG_EVERY_MS = 5000; // while the model works through an import, the time left is asked this often

const el = {
  section: byId("import"),
  form: byId("import-form"),
  file: byId("import-file"),
  history: byId("import-history"),
  model: byId("import-model"),
  status: byId("import-status"),
  preview: byId("import-preview"),
  mapping: byId("import-mapping"),
  labels: byId("import-labels"),
  summary: byId("import-summary"),
  problems: byId("import-problems"),
  sample: byId("import-sample"),
  run: byId("import-run"),
  progress: byId("import-progress"),
  bar: byId("import-bar"),
  done: byId("import-done"),
  backlog: byId("import-backlog"),
};

let t = translator(initialLanguage());
let seen = null; // the last preview's answer
let chosen = { mapping: null, values: { source: {} } }; // what the manager changed

function say(text, kind = "") {
  el.status.textContent = text;
  el.status.dataset.kind = kind;
}

/** The server's reason, in its words (every refusal of the import names one). */
async function reasonOf(response) {
  try {
    const body = await response.json();
    if (Array.isArray(body.errors) && body.errors.length) return body.errors.join(" ");
    if (body.error) return String(body.reason || body.error);
  } catch {
    // not JSON: the status says it
  }
  if (response.status === 413) return t("import.tooLarge");
  if (response.status === 403) return t("import.forbidden");
  return t("import.failed", { status: response.status });
}

function query() {
  const params = { name: el.file.files[0]?.name || "" };
  if (chosen.mapping) params.map = JSON.stringify(chosen.mapping);
  if (Object.keys(chosen.values.source).length) params.values = JSON.stringify(chosen.values);
  return params;
}

function post(path, params) {
  const headers = { "Content-Type": "text/csv", Accept: "application/json" };
  const token = csrfToken();
  if (token) headers["X-CSRF-Token"] = token;
  return fetch(apiUrl(path, params), { method: "POST", body: el.file.files[0], headers, credentials: "same-origin" });
}

async function previewFile() {
  if (!el.file.files.length) {
    say(t("import.chooseFile"), "error");
    return;
  }
  say(t("import.reading"));
  show(el.progress, false);
  let response;
  try {
    response = await post("/imports/preview", query());
  } catch {
    say(t("import.unreachable"), "error");
    return;
  }
  if (!response.ok) {
    seen = null;
    show(el.preview, false);
    say(await reasonOf(response), "error");
    return;
  }
  seen = await response.json();
  chosen.mapping = seen.mapping;
  render();
  say("");
}

function mappingRow(field) {
  const select = h("select", { id: `import-map-${field}`, dataset: { field } },
    h("option", { value: "" }, t("import.noColumn")),
    ...seen.columns.map((column) => h("option", { value: column }, column)));
  select.value = seen.mapping[field] || "";
  select.addEventListener("change", () => {
    const mapping = { ...chosen.mapping };
    if (select.value) mapping[field] = select.value;
    else delete mapping[field];
    chosen.mapping = mapping;
    previewFile();
  });
  return h("div", { class: "filter" }, h("label", { class: "label", for: select.id }, t(`import.field.${field}`)), select);
}

function labelRow(label, index) {
  const select = h("select", { id: `import-label-${index}`, dataset: { label } },
    h("option", { value: "" }, t("import.asIs")),
    ...seen.sources.map((source) => h("option", { value: source }, source)));
  select.value = chosen.values.source[label] || "";
  select.addEventListener("change", () => {
    const source = { ...chosen.values.source };
    if (select.value) source[label] = select.value;
    else delete source[label];
    chosen.values = { source };
    previewFile();
  });
  return h("div", { class: "filter" }, h("label", { class: "label", for: select.id }, label), select);
}

/** A stored instant on the shop's clock (FI_TIMEZONE), to the second, as the export wrote it. */
function shopTime(instant) {
  const options = { day: "numeric", month: "numeric", year: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" };
  return new Intl.DateTimeFormat(t.locale, { ...options, timeZone: t.timeZone }).format(toDate(instant));
}

function sampleTable() {
  const head = h("tr", {}, ...["line", "id", "timestamp", "source", "store", "text"].map(
    (key) => h("th", { scope: "col" }, t(`import.column.${key}`))));
  const rows = seen.sample.map((row) => h("tr", { dataset: { line: String(row.line) } },
    h("td", {}, String(row.line)),
    h("td", {}, row.id || ""),
    h("td", { class: "import-time", dataset: { instant: row.timestamp || "" } },
      row.timestamp ? shopTime(row.timestamp) : t("import.savedNow")),
    h("td", {}, row.source || ""),
    h("td", {}, row.store || ""),
    h("td", { class: "import-text" }, row.text || "")));
  return [h("thead", {}, head), h("tbody", {}, ...rows)];
}

function render() {
  el.mapping.replaceChildren(
    h("p", { class: "muted" }, seen.suggested ? t("import.suggested") : t("import.mapped")),
    h("div", { class: "filter-grid" }, ...FIELDS.map(mappingRow)));
  const labels = [...new Set([...seen.unknownSources, ...Object.keys(chosen.values.source)])];
  el.labels.replaceChildren(...(labels.length
    ? [h("p", { class: "muted" }, t("import.labels")), h("div", { class: "filter-grid" }, ...labels.map(labelRow))]
    : []));
  el.summary.textContent = t("import.summary", { rows: seen.rows, store: seen.wouldStore, bad: seen.linesWithProblems });
  el.summary.dataset.wouldStore = String(seen.wouldStore);
  el.summary.dataset.problems = String(seen.linesWithProblems);
  el.problems.replaceChildren(...seen.problems.map((problem) => h("li", {}, problem)),
    ...(seen.moreProblems ? [h("li", { class: "muted" }, t("import.moreProblems", { n: seen.moreProblems }))] : []));
  el.sample.replaceChildren(...sampleTable());
  el.run.disabled = seen.linesWithProblems > 0 || seen.wouldStore === 0;
  show(el.preview, true);
}

function showProgress(line) {
  el.bar.max = Math.max(1, line.total);
  el.bar.value = line.done;
  el.done.textContent = t("import.progress", {
    done: line.done, total: line.total, created: line.created, accepted: line.accepted,
    duplicate: line.duplicate, invalid: line.invalid,
  });
  el.done.dataset.done = String(line.done);
  el.done.dataset.total = String(line.total);
  if (line.finished) {
    el.progress.dataset.state = line.failed ? "failed" : "done";
    say(line.failed ? t("import.stopped", { reason: line.failed }) : t("import.finished"), line.failed ? "error" : "ok");
  }
}

async function runImport() {
  el.run.disabled = true;
  show(el.progress, true);
  el.progress.dataset.state = "running";
  say(t("import.running"));
  const params = { ...query(), history: el.history.checked, byModel: el.model.checked && el.history.checked };
  let response;
  try {
    response = await post("/imports/run", params);
  } catch {
    say(t("import.unreachable"), "error");
    return;
  }
  if (!response.ok) {
    el.progress.dataset.state = "refused";
    say(await reasonOf(response), "error");
    el.run.disabled = false;
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let newline;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const text = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (text) showProgress(JSON.parse(text));
    }
  }
  if (params.byModel) watchBacklog();
}

/** The model's work on what was imported: rows waiting and the minutes left at the measured pace (/health). */
async function watchBacklog() {
  let health;
  try {
    health = await getJson("/health");
  } catch (error) {
    health = error.status === 503 ? null : undefined; // a model down still names no backlog here
  }
  const corpus = health?.backlog?.corpus;
  if (!corpus) return;
  el.backlog.textContent = corpus.items === 0 ? t("import.modelDone")
    : corpus.minutesLeft === null ? t("import.modelUnknown", { n: corpus.items })
      : t("import.modelLeft", { n: corpus.items, rate: corpus.rowsPerMinute, minutes: corpus.minutesLeft });
  show(el.backlog, true);
  if (corpus.items > 0) setTimeout(watchBacklog, BACKLOG_EVERY_MS);
}

function isChainManager(me) {
  if (!me || me.auth === "none") return true;
  return (me.grants || []).some((g) => (g.role === "manager" || g.role === "operator") && g.store === "*");
}

async function start() {
  try {
    const schema = await getJson("/schema");
    if (schema && schema.language) t = translator(schema.language, schema.timezone);
  } catch {
    // the browser's language stays
  }
  const me = await getJson("/auth/me").catch(() => null);
  if (!isChainManager(me)) return; // an import is the chain's: a store's manager never sees the form
  applyStatic(el.section, t);
  el.history.addEventListener("change", () => {
    el.model.disabled = !el.history.checked;
  });
  el.file.addEventListener("change", () => {
    chosen = { mapping: null, values: { source: {} } };
    previewFile();
  });
  el.form.addEventListener("submit", (event) => {
    event.preventDefault();
    previewFile();
  });
  el.run.addEventListener("click", runImport);
  show(el.section, true);
  el.section.dataset.ready = "true";
}

start();
