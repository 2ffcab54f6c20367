// Report pieces shared by the desk's live segment and the management view.
// ctx = { t, labels, openSources(title, sources, opener) | null }

import { h } from "./dom.js";
import { formatShortTime } from "./i18n.js";

const INLINE_ITEMS = 5;

/** Entries grouped by category as the server orders the live view: rated first, the demoted
 *  (moderation) categories last in declared order, then biggest first, then key. */
export function groupItems(items, labels) {
  const groups = new Map();
  for (const item of items || []) {
    if (!item || !item.structure) continue;
    const key = item.structure.category;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(item);
  }
  const rank = (key) => (labels.demoted.includes(key) ? labels.demoted.indexOf(key) : -1);
  return [...groups.entries()]
    .sort(([ka, a], [kb, b]) => rank(ka) - rank(kb) || b.length - a.length || (ka < kb ? -1 : ka > kb ? 1 : 0))
    .map(([category, members]) => ({ category, members, unrated: labels.demoted.includes(category) }));
}

function itemSentiment(item, labels) {
  const st = item.structure;
  if (!st || labels.demoted.includes(st.category)) return null;
  return st.sentiment || labels.typeSentiment[st.type] || null;
}

/** Phase A of the desk: pseudo-themes built from the stored entries alone (no model, instant). */
export function themesFromItems(items, labels) {
  return groupItems(items, labels).map(({ category, members, unrated }) => {
    const sentimentCounts = {};
    const sources = members.map((item) => {
      const sentiment = itemSentiment(item, labels);
      if (sentiment) sentimentCounts[sentiment] = (sentimentCounts[sentiment] || 0) + 1;
      const alertCategories = [...new Set((item.alerts || []).map((a) => a.category))];
      return {
        feedbackId: item.id, source: item.source, timestamp: item.timestamp, text: item.text,
        severity: item.structure.severity || "unknown", needsReview: !!item.needsReview,
        alertCategories: alertCategories.length ? alertCategories : null, sentiment,
        ruleAdvice: item.ruleAdvice || [],
      };
    });
    return {
      category, title: labels.category(category), narrative: null, count: members.length, direction: "stable",
      directionLabel: "", narrativeFromLlm: false, sources, unrated,
      flaggedCount: members.filter((i) => i.needsReview).length, sentimentCounts,
    };
  });
}

/** Chart input from report themes (rated only). */
export function chartSections(themes, labels) {
  return (themes || []).filter((th) => !th.unrated && th.category !== "overall").map((th) => {
    const severityCounts = {};
    for (const src of th.sources || []) {
      const key = src.severity || "unknown";
      severityCounts[key] = (severityCounts[key] || 0) + 1;
    }
    return { label: labels.category(th.category), count: th.count || 0, severityCounts,
      sentimentCounts: th.sentimentCounts || {}, flaggedCount: th.flaggedCount || 0 };
  });
}

export function sentimentPills(counts, ctx) {
  const keys = Object.keys(counts || {}).filter((k) => counts[k] > 0);
  if (!keys.length) return null;
  const order = ctx.labels.sentimentOrder;
  keys.sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  return h("ul", { class: "pills" },
    keys.map((k) => h("li", { class: ["pill", `snt-${k}`] }, `${ctx.labels.sentiment(k)} ${counts[k]}`)));
}

export function severityTag(severity, ctx) {
  return h("span", { class: ["sev", `sev-${severity || "unknown"}`] },
    h("span", { class: "dot", "aria-hidden": "true" }), ctx.labels.severity(severity || "unknown"));
}

/** Which channel an item came from (the management view's inbox: the desk or an import). */
function channelBadge(channel, ctx) {
  if (!ctx.withChannel || !channel || !ctx.t.has(`badge.${channel}-channel`)) return null;
  return h("span", { class: ["badge", `channel-${channel}`], dataset: { channel } }, ctx.t(`badge.${channel}-channel`));
}

export function sourceItem(src, ctx, { unrated = false } = {}) {
  const t = ctx.t;
  const meta = h("p", { class: "item-meta" },
    channelBadge(src.channel, ctx),
    unrated ? null : severityTag(src.severity, ctx),
    src.sentiment ? h("span", { class: ["badge", `snt-${src.sentiment}`] }, ctx.labels.sentiment(src.sentiment)) : null,
    src.needsReview ? h("span", { class: "badge badge-warn" }, t("item.review")) : null,
    ...(ctx.adviceDetail ? [] : categoryAdvice(src).map((a) => h("span",
      { class: "badge badge-advice", title: a.words.join(", ") }, t("item.ruleAdvice", { value: ctx.labels.category(a.value) })))),
    src.alertCategories && src.alertCategories.length
      ? h("span", { class: "badge badge-alert" }, `⚑ ${src.alertCategories.map(ctx.labels.alert).join(", ")}`) : null,
    h("span", { class: "muted" }, ctx.labels.source(src.source)),
    ctx.withChannel && src.store
      ? h("span", { class: "muted", dataset: { store: src.store } }, (ctx.storeNames || {})[src.store] || src.store) : null,
    h("time", { class: "muted", datetime: src.timestamp }, formatShortTime(src.timestamp, t)));
  return h("li", { class: "item" }, h("p", { class: "item-text" }, src.text), meta,
    ctx.adviceDetail ? adviceLines(src, ctx) : null);
}

function categoryAdvice(src) {
  return (src.ruleAdvice || []).filter((a) => a.field === "category");
}

/** Where a rule disagrees with the person's category (ADR 0045), in full for a manager's review: the value
 *  saved, the rule's choice, which rule and the words of the text that made it choose. */
export function adviceLines(src, ctx) {
  const t = ctx.t;
  const advice = categoryAdvice(src);
  if (!advice.length || !src.category) return null;
  const chosen = src.categoryLabel || ctx.labels.category(src.category);
  return advice.map((a) => h("dl", { class: "advice-line", dataset: { chosen: src.category, rule: a.value } },
    h("div", null, h("dt", null, t("item.adviceChosen")), h("dd", { class: "advice-chosen" }, chosen)),
    h("div", null, h("dt", null, t("item.adviceRule")), h("dd", { class: "advice-rule" },
      t("item.adviceRuleValue", {
        value: a.valueLabel || ctx.labels.category(a.value),
        rule: t.has(`advice.rule.${a.rule}`) ? t(`advice.rule.${a.rule}`) : a.rule,
        words: (a.words || []).map((w) => `«${w}»`).join(", "),
      })))));
}

/** "pending" | "model" | "automatic" — older reports (and the desk's phase A) carry only narrativeFromLlm. */
export function proseStatus(theme) {
  const status = theme.prose && theme.prose.status;
  if (status) return status;
  return theme.narrativeFromLlm ? "model" : "automatic";
}

/** Where a theme's text comes from, and why the automatic summary stands when it does. */
export function narrativeOrigin(theme, ctx) {
  const status = proseStatus(theme);
  if (status === "pending") { // writing, or (ctx.waiting: the report's reason) waiting for the model
    const waiting = ctx.waiting && ctx.t.has(`wait.${ctx.waiting}`);
    return h("span", { class: "origin origin-pending", role: "status", dataset: waiting ? { waiting: ctx.waiting } : {} },
      h("span", { class: "spinner", "aria-hidden": "true" }), ctx.t(waiting ? "narrative.waiting" : "narrative.pending"),
      waiting ? h("span", { class: "origin-wait" }, ` ${ctx.t(`wait.${ctx.waiting}`)}`) : null);
  }
  if (status === "model") return h("span", { class: "origin origin-model" }, ctx.t("narrative.model"));
  return h("span", { class: "origin origin-auto" }, ctx.t("narrative.auto"));
}

/** Why the automatic summary stands instead of the model's, as a sentence under it (or null). */
function fallbackReason(theme, ctx) {
  const reason = theme.prose && theme.prose.status === "automatic" ? theme.prose.reason : null;
  if (!reason || !ctx.t.has(`reason.${reason}`)) return null;
  return h("p", { class: "origin-why", dataset: { reason } }, ctx.t("narrative.why", { reason: ctx.t(`reason.${reason}`) }));
}

function themeMeta(theme, ctx) {
  const parts = [];
  if (theme.category && theme.category !== "overall") parts.push(ctx.labels.category(theme.category));
  parts.push(ctx.t("section.count", { n: theme.count || 0 }));
  if (!theme.unrated && theme.directionLabel) parts.push(ctx.t("section.trend", { label: theme.directionLabel }));
  return h("p", { class: "theme-meta" }, parts.join(" · "));
}

/**
 * One theme card. mode "inline": its entries listed under it (desk);
 * "dialog": a button opening them in a dialog (management view).
 */
export function themeCard(theme, ctx, mode = "inline") {
  const t = ctx.t;
  const sources = theme.sources || [];
  const status = theme.unrated ? "automatic" : proseStatus(theme);
  const card = h("article", { class: ["theme", theme.unrated && "theme-unrated"],
    dataset: { category: theme.category, prose: status }, "aria-busy": status === "pending" ? "true" : null },
    h("h3", { class: "theme-title" }, theme.title || ctx.labels.category(theme.category)),
    themeMeta(theme, ctx),
    theme.unrated ? null : sentimentPills(theme.sentimentCounts, ctx),
    theme.flaggedCount ? h("p", { class: "flag-warn" }, t("section.flagged", { n: theme.flaggedCount })) : null);
  if (theme.narrative) {
    card.append(h("div", { class: ["narrative", status === "pending" && "narrative-pending"] },
      narrativeOrigin(theme, ctx), h("p", null, theme.narrative), theme.unrated ? null : fallbackReason(theme, ctx)));
  }
  if (!sources.length) return card;
  if (mode === "dialog" && ctx.openSources) {
    const title = theme.title || ctx.labels.category(theme.category);
    const button = h("button", { type: "button", class: "btn btn-link examples-link" }, t("section.show", { n: sources.length }));
    button.addEventListener("click", () => ctx.openSources(title, sources, button, theme.unrated));
    const actions = h("p", { class: "theme-actions" }, button);
    if (ctx.drill) { // every item of the group, a page at a time (the examples above are the most severe)
      const all = h("button", { type: "button", class: "btn btn-link drill-link" }, t("section.all", { n: theme.count || 0 }));
      all.addEventListener("click", () => ctx.drill(t("drill.title", { title }), { category: theme.category }, all));
      actions.append(all);
    }
    card.append(actions);
  } else {
    // Inline (desk): the first few at once, the rest one click away, so a busy week stays readable.
    const item = (src) => sourceItem(src, ctx, { unrated: theme.unrated });
    const first = sources.slice(0, INLINE_ITEMS);
    const rest = sources.slice(INLINE_ITEMS);
    card.append(h("ul", { class: "items" }, first.map(item)));
    if (rest.length) {
      card.append(h("details", { class: "more-items" }, h("summary", null, t("section.more", { n: rest.length })),
        h("ul", { class: "items" }, rest.map(item))));
    }
  }
  return card;
}

export function moderationBlock(unratedThemes, ctx, mode = "inline") {
  if (!unratedThemes.length) return null;
  const total = unratedThemes.reduce((acc, th) => acc + (th.count || 0), 0);
  return h("details", { class: "moderation" },
    h("summary", null, ctx.t("section.moderation", { n: total })),
    h("div", { class: "moderation-body" }, unratedThemes.map((th) => themeCard(th, ctx, mode))));
}

function alertOrigin(alert, ctx) {
  const hits = alert.deterministicHits || [];
  if (hits.length) {
    // The category's label and the words the text matched; an older report carries only the stem.
    const categories = [...new Set(hits.map((hit) => hit.categoryLabel || ctx.labels.alert(hit.category)))];
    const words = [...new Set(hits.flatMap((hit) => (hit.words && hit.words.length ? hit.words : [hit.pattern])))];
    return h("p", { class: "alert-origin" },
      h("span", { class: "badge badge-alert" }, `⚑ ${categories.join(", ")}`),
      ` ${ctx.t("alerts.keyword")}: `, h("q", { class: "alert-words" }, words.join(", ")));
  }
  return h("p", { class: "alert-origin" }, h("span", { class: "badge badge-alert" }, `⚑ ${ctx.t("alerts.model")}`),
    alert.llmReason ? ` ${alert.llmReason}` : null);
}

/** The alert heading: the window's true count (``total``, when the caller knows it), and how many are listed;
 * with ``period`` ({from, to}, dates as a person reads them) the heading names its window, so it is not read
 * as the week's count the brief above gives. */
export function alertsHeading(total, shown, t, period = null) {
  const n = Math.max(total, shown);
  if (period) {
    return total > shown ? t("alerts.periodShown", { n: total, shown, ...period }) : t("alerts.period", { n, ...period });
  }
  return total > shown ? t("alerts.headingShown", { n: total, shown }) : t("alerts.heading", { n });
}

export function alertsBlock(alerts, ctx) {
  const t = ctx.t;
  const list = alerts || [];
  const heading = alertsHeading(ctx.alertTotal ?? list.length, list.length, t);
  const block = h("section", { class: "alerts", "aria-label": heading }, h("h3", null, heading));
  if (!list.length) {
    block.append(h("p", { class: "muted" }, t("alerts.none")));
    return block;
  }
  if (ctx.drill) {
    const all = h("button", { type: "button", class: "btn btn-link drill-link" }, t("alerts.all"));
    all.addEventListener("click", () => ctx.drill(t("drill.alerts"), { alert: "any" }, all));
    block.append(h("p", { class: "alerts-actions" }, all));
  }
  block.append(h("ul", { class: "alert-list" }, list.map((alert) => h("li", { class: "alert-card" },
    h("p", { class: "item-meta" },
      h("time", { class: "muted", datetime: alert.timestamp }, formatShortTime(alert.timestamp, t)),
      alert.store && ctx.storeNames
        ? h("strong", { class: "alert-store", dataset: { store: alert.store } }, ctx.storeNames[alert.store] || alert.store) : null,
      h("span", { class: "muted" }, ctx.labels.source(alert.source))),
    alertOrigin(alert, ctx),
    h("p", { class: "alert-excerpt" }, alert.textExcerpt || alert.text || ""),
    h("details", { class: "alert-message" }, h("summary", null, t("alerts.show")),
      h("p", { class: "item-text" }, alert.text || alert.textExcerpt || ""))))));
  return block;
}
