// Hand-made charts shared by the desk's live segment and the management view.
//
// The numbers are always visible as text (labels, values, legend); the SVG shapes are decoration
// for the eye and hidden from screen readers. Bars are SVG presentation attributes, so a strict
// Content-Security-Policy (no inline styles) is respected.

import { h, s } from "./dom.js";

export const SEVERITY_COLOURS = { low: "#4e8ac8", medium: "#d97706", high: "#ef5350", critical: "#a02c2c" };
export const SENTIMENT_COLOURS = { positive: "#1e7e34", negative: "#b3261e", neutral: "#9aa4af" };
const FALLBACK_COLOUR = "#9aa4af";
const EXTRA_COLOURS = ["#7b61a8", "#2e8b8b", "#8a6d3b", "#5f6b7a"];
const MAX_BARS = 10;
const LABEL_CHARS = 17;

export function shortLabel(text, max = LABEL_CHARS) {
  const value = String(text ?? "");
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/** Keys in the declared order, then any undeclared keys seen in the data (in first-seen order). */
export function orderedKeys(declared, counts) {
  const keys = declared.filter((k) => (counts[k] || 0) > 0);
  for (const key of Object.keys(counts)) if (!declared.includes(key) && counts[key] > 0) keys.push(key);
  return keys;
}

function sumCounts(sections, field) {
  const total = {};
  for (const section of sections) {
    for (const [key, n] of Object.entries(section[field] || {})) total[key] = (total[key] || 0) + n;
  }
  return total;
}

function colourFor(palette, key, index) {
  return palette[key] || EXTRA_COLOURS[index % EXTRA_COLOURS.length] || FALLBACK_COLOUR;
}

/** A tile: its number, its name, and (`what`) what it counts in a few words, shown, not a tooltip. */
function kpi(label, value, warn = false, what = "", key = "") {
  return h("div", { class: ["kpi", warn && "kpi-warn"], dataset: key ? { kpi: key } : {} },
    h("span", { class: "kpi-value" }, String(value)),
    h("span", { class: "kpi-label" }, label),
    what ? h("span", { class: "kpi-what" }, what) : "");
}

/**
 * How the window's alert items split (alertSplit below): "2 urgent: in a case · 8 not urgent, no case · …".
 * When the list stops short of them, the cases are the listed items' and said so; the digest's are all.
 */
export function alertsWhat(split, t) {
  const inCase = t("kpi.alertsCase", { n: split.withCase });
  const newest = `${t("kpi.alertsOfNewest", { n: split.shown })} ${inCase}`;
  if (split.digest == null) return newest; // past the list's cap the report leaves the digest's count unsaid
  const digest = t("kpi.alertsDigest", { n: split.digest });
  if (split.shown < split.total) return `${digest} · ${newest}`;
  const parts = [inCase, digest];
  if (split.other > 0) parts.push(t("kpi.alertsOther", { n: split.other }));
  return parts.join(" · ");
}

/**
 * The window's alert items (`total`, the series' alert line) split by what became of them: to the morning
 * digest (`digest`: the report's `digestAlertItems`, by the server's one rule; null when the alert list stopped at
 * its cap, where the report does not count them), in a case
 * (`alertCases`: any state; the cases of the listed items, `alerts`, at most FI_REPORT_MAX_ITEMS), or neither
 * (an urgent alert saved too old to open a case, a history import, or one the model found): known only when
 * every alert item is listed.
 */
export function alertSplit(alerts, alertCases, digest, total) {
  const shown = (alerts || []).length;
  const cases = alertCases || {};
  const withCase = ["open", "acknowledged", "handled", "dismissed"].reduce((acc, k) => acc + (cases[k] || 0), 0);
  const all = Math.max(total, shown);
  return { total: all, shown, withCase, digest, other: digest == null ? 0 : Math.max(0, all - withCase - digest) };
}

function barsChart(title, rows, t) {
  const max = Math.max(1, ...rows.map((r) => r.value));
  const shown = rows.slice(0, MAX_BARS);
  const list = h("ol", { class: "bars" });
  for (const row of shown) {
    const width = (row.value / max) * 100;
    list.append(h("li", { class: "bar-row", title: row.label },
      h("span", { class: "bar-label" }, shortLabel(row.label)),
      s("svg", { class: "bar-track", viewBox: "0 0 100 10", preserveAspectRatio: "none", "aria-hidden": "true",
        focusable: "false" },
      s("rect", { x: 0, y: 0, width: width.toFixed(2), height: 10, rx: 1, class: "bar-fill" })),
      h("span", { class: "bar-value" }, String(row.value))));
  }
  const more = rows.length - shown.length;
  return h("figure", { class: "chart chart-bars" }, h("figcaption", null, title), list,
    more > 0 ? h("p", { class: "chart-note" }, t("chart.more", { n: more })) : null);
}

function stackedChart(title, keys, counts, labelOf, palette, cssPrefix) {
  const total = keys.reduce((acc, k) => acc + counts[k], 0);
  if (!total) return null;
  const svg = s("svg", { class: "stack-track", viewBox: "0 0 100 10", preserveAspectRatio: "none",
    "aria-hidden": "true", focusable: "false" });
  const legend = h("ul", { class: "legend" });
  let x = 0;
  keys.forEach((key, index) => {
    const share = (counts[key] / total) * 100;
    const colour = colourFor(palette, key, index);
    svg.append(s("rect", { x: x.toFixed(3), y: 0, width: share.toFixed(3), height: 10, fill: colour,
      class: `${cssPrefix}-${key}` }));
    x += share;
    legend.append(h("li", null,
      s("svg", { class: "swatch", viewBox: "0 0 10 10", "aria-hidden": "true", focusable: "false" },
        s("rect", { width: 10, height: 10, rx: 2, fill: colour })),
      // one item of a thousand is not "0 %": a share that rounds to nothing says it is under one per cent
      h("span", null, `${labelOf(key)} ${counts[key]} (${counts[key] && share < 0.5 ? "< 1" : Math.round(share)} %)`)));
  });
  return h("figure", { class: "chart chart-stack" }, h("figcaption", null, title), svg, legend);
}

/**
 * Paint the charts into `container` (emptied first). Nothing is drawn when there is no rated entry.
 * sections: [{label, count, severityCounts, sentimentCounts, flaggedCount}] — rated sections only.
 * Returns true when something was drawn.
 */
export function renderCharts(container, {
  sections, labels, t, directionLabel = null, sentimentCounts = null, severityCounts: windowSeverities = null,
  period = "", alerts = null,
}) {
  container.replaceChildren();
  const rated = (sections || []).filter((sec) => sec.count > 0);
  const total = rated.reduce((acc, sec) => acc + sec.count, 0);
  if (!total) {
    container.hidden = true;
    return false;
  }
  container.hidden = false;
  // the window's own counts where the caller has them (a section's severities are of its example rows only)
  const severityCounts = windowSeverities || sumCounts(rated, "severityCounts");
  const sentiments = sentimentCounts || sumCounts(rated, "sentimentCounts");
  const flagged = rated.reduce((acc, sec) => acc + (sec.flaggedCount || 0), 0);
  const order = labels.severityOrder;
  const topTwo = order.slice(-2);
  const severe = topTwo.reduce((acc, k) => acc + (severityCounts[k] || 0), 0);

  // each tile says what it counts (the report's window where the caller names it), and the alerts' tile how
  // its items relate to the cases: the tiles, the brief and the cases count different things
  const tiles = h("div", { class: "kpis" },
    kpi(t("kpi.entries"), total, false, period ? t("kpi.entriesWhat", { period }) : "", "entries"),
    topTwo.length ? kpi(topTwo.map((k) => labels.severity(k)).join(" + "), severe, severe > 0,
      t("kpi.severeWhat"), "severe") : null,
    alerts ? kpi(t("kpi.alerts"), alerts.total, false, alertsWhat(alerts, t), "alerts") : null,
    kpi(t("kpi.review"), flagged, flagged > 0, t("kpi.reviewWhat"), "review"),
    directionLabel ? kpi(t("kpi.trend"), directionLabel) : null);

  const rows = rated.map((sec) => ({ label: sec.label, value: sec.count }))
    .sort((a, b) => b.value - a.value);
  const severityKeys = orderedKeys(order, severityCounts);
  const sentimentKeys = orderedKeys(labels.sentimentOrder, sentiments);
  container.append(
    tiles,
    h("div", { class: "chart-grid" },
      barsChart(t("chart.sections", { field: labels.categoryFieldWord }), rows, t),
      h("div", { class: "chart-stacks" },
        stackedChart(t("chart.severity"), severityKeys, severityCounts, labels.severity, SEVERITY_COLOURS, "sev"),
        stackedChart(t("chart.sentiment"), sentimentKeys, sentiments, labels.sentiment, SENTIMENT_COLOURS, "snt"))),
  );
  return true;
}

// ---------------------------------------------------------------- time series (report.series)

const SERIES_LINES = 6; // all, alerts and the four largest categories: readable on a phone; the rest folded

/** "1.6." for a local day "2026-06-01" (the server already folded it into FI_TIMEZONE). */
export function formatDay(iso, t) {
  const date = new Date(`${iso}T12:00:00Z`);
  if (Number.isNaN(date.getTime())) return String(iso ?? "");
  return new Intl.DateTimeFormat(t.locale, { day: "numeric", month: "numeric", timeZone: "UTC" }).format(date);
}

function formatNumber(value, t, digits = 1) {
  return new Intl.NumberFormat(t.locale, { maximumFractionDigits: digits, signDisplay: "exceptZero" }).format(value);
}

/** Bars for the window's buckets, a dashed line for the previous period's: both scaled to one maximum. A
 * previous period only partly recorded (`compared` false) is not drawn: its unrecorded days would read as
 * days without feedback. */
function sparkline(line, compared) {
  const previous = compared ? line.previous : [];
  const n = Math.max(1, line.current.length);
  const max = Math.max(1, ...line.current, ...previous);
  const width = 100 / n;
  const svg = s("svg", { class: "series-track", viewBox: "0 0 100 30", preserveAspectRatio: "none",
    "aria-hidden": "true", focusable: "false" });
  line.current.forEach((value, i) => {
    const height = (value / max) * 28;
    svg.append(s("rect", { x: (i * width + width * 0.15).toFixed(2), y: (30 - height).toFixed(2),
      width: (width * 0.7).toFixed(2), height: height.toFixed(2), class: "series-bar" }));
  });
  const points = previous.map((value, i) => `${(i * width + width / 2).toFixed(2)},${(30 - (value / max) * 28).toFixed(2)}`);
  if (points.length) svg.append(s("polyline", { points: points.join(" "), class: "series-previous", fill: "none" }));
  return svg;
}

function seriesFigure(line, series, t) {
  const pct = line.changePct === null || line.changePct === undefined ? "" : ` (${formatNumber(line.changePct, t, 0)} %)`;
  const verdict = line.significant ? t("series.significant") : t("series.notSignificant");
  return h("figure", { class: ["series", line.significant && "series-significant"], dataset: { key: line.key } },
    h("figcaption", null, h("span", { class: "series-label" }, line.label),
      // a period not compared has no "before" to print: its count is of the few days recorded
      h("span", { class: "series-totals" }, series.historyFrom ? t("series.totalNow", { now: line.currentTotal })
        : t("series.totals", { now: line.currentTotal, before: line.previousTotal }))),
    sparkline(line, !series.historyFrom),
    h("p", { class: "series-axis" }, h("span", null, formatDay(series.starts[0], t)),
      h("span", null, formatDay(series.starts[series.starts.length - 1], t))),
    series.historyFrom
      ? h("p", { class: "series-change" }, t("series.notCompared"))
      : h("p", { class: "series-change" },
        t("series.change", { change: formatNumber(line.change, t, 0), pct,
          z: formatNumber(line.zScore, t, 2).replace(/^\+/, ""), threshold: formatNumber(series.thresholdZ, t, 2).replace(/^\+/, "") }),
        " ", h("strong", null, verdict)));
}

/** The report's trend rule in its own numbers (report.series: thresholdZ, minItems): a change is significant
 * at z = change ÷ √n ≥ thresholdZ over n ≥ minItems items of both periods; `example` is the smallest change
 * that is at 100 items, so "z" has a size a reader knows. */
export function ruleNumbers(series, t) {
  const z = series.thresholdZ;
  return { z: formatNumber(z, t, 2).replace(/^\+/, ""), example: Math.ceil(z * 10 - 1e-9), min: series.minItems };
}

/** Paint the series into `container`: a caption saying the buckets and the zone, then one figure per line. */
export function renderSeries(container, series, t) {
  container.replaceChildren();
  const lines = (series && series.lines) || [];
  if (!lines.length || !series.starts.length) {
    container.hidden = true;
    return false;
  }
  container.hidden = false;
  const shown = lines.slice(0, SERIES_LINES);
  container.append(
    // "beside the previous period" only where the periods are compared
    h("h3", null, t(`series.heading${series.bucket === "week" ? "Week" : "Day"}${series.historyFrom ? "Alone" : ""}`)),
    h("p", { class: "chart-note series-rule" }, t("series.note", {
      from: formatDay(series.previousStarts[0], t), zone: series.timezone, ...ruleNumbers(series, t) })),
    series.historyFrom ? h("p", { class: "chart-note series-partial" }, t("series.partial", { day: formatDay(series.historyFrom, t) })) : "",
    h("div", { class: "series-grid" }, shown.map((line) => seriesFigure(line, series, t))));
  // the smaller departments' lines one press away, named, not a count of charts nobody can open
  const rest = lines.slice(SERIES_LINES);
  if (rest.length) {
    container.append(h("details", { class: "more-items series-more" },
      h("summary", null, t("series.more", { n: rest.length, names: rest.map((line) => line.label).join(", ") })),
      h("div", { class: "series-grid" }, rest.map((line) => seriesFigure(line, series, t)))));
  }
  return true;
}
