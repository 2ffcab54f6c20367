// The management view's first screen: the week in a few lines (ADR 0047). What needs acting on now (the
// open cases, the most serious alert first, then the oldest: the server's order), what rose against the
// week before (GET /report/brief: only rises its significance rule keeps, per store by name), and the
// week's totals. Everything else of the page (the full case list, alerts, charts, the store table) lies
// below it. Counts are the server's totals, never a count of listed examples. One line says how often
// people corrected the model's proposals this week, per field (GET /report/corrections, ADR 0065).

import { getJson } from "./api.js";
import { byId, h, show } from "./dom.js";
import { dueOf, lateOnArrival, openedLater, overdueFirst, spanWords } from "./due.js";
import { applyStatic, formatDayTime, formatShortTime, initialLanguage, toDate, translator } from "./i18n.js";
import { pageStore, storeName, storeNames } from "./stores.js";

const ACT_SHOWN = 3; // the open cases the brief lists; the full list is the next section
const RISES_SHOWN = 4; // problems; good news (a rise of praise) is listed after them, at most GOOD_SHOWN
const GOOD_SHOWN = 1;
const ACTIVE = new Set(["open", "acknowledged"]);
const EXCERPT_CHARS = 90;
const QUALITY_ALWAYS = new Set(["category", "theme"]); // other fields are named when someone corrected them

const el = {
  section: byId("brief"),
  heading: byId("brief-heading"),
  totals: byId("brief-totals"),
  digest: byId("brief-digest"),
  urgent: byId("brief-urgent"),
  quality: byId("brief-quality"),
  act: byId("brief-act"),
  changed: byId("brief-changed"),
  chanceNote: byId("brief-chance-note"),
  stores: byId("brief-stores"),
};

function excerpt(text) {
  return text.length <= EXCERPT_CHARS ? text : `${text.slice(0, EXCERPT_CHARS)}…`;
}

function caseLine(item, names, t, topTier, managersOf = {}) {
  const categories = (item.item?.alertCategories || []).map((c) => t(`alert.${c}`)).join(", ");
  const store = storeName(names, item.item?.store) || t("brief.noStore");
  return h("li", { class: ["brief-case", item.tier === topTier && "brief-case-serious"], dataset: { ref: item.ref, tier: String(item.tier) } },
    h("a", { href: `#case=${encodeURIComponent(item.ref).replace(/%3A/g, ":")}`, class: "brief-case-link" },
      h("strong", { class: "brief-store" }, store), " · ", h("span", { class: "brief-alert" }, categories),
      item.escalatedAt ? ` · ${t("cases.escalated")}` : "",
      // late against the case's own deadline, which the line names with its rule: so long after the
      // incident (ADR 0061: by the alert's tier), which an imported case can be past when it opens
      dueOf(item)?.overdue ? h("span", { class: "brief-overdue" }, ` · ${overdueWords(item, t)}`) : "",
      // when it happened (an imported incident is days older than its case), and whether anyone has it
      " · ", h("span", { class: "muted" }, t("brief.happened", { time: formatShortTime(item.item?.timestamp || item.openedAt, t) })),
      // an imported incident's case opens when its feedback arrives, days later: say when, beside when it
      // happened (briefly: "Myöhässä jo saapuessaan" says the deadline had passed; the case below in full)
      openedLater(item) ? h("span", { class: "muted brief-opened" }, ` · ${arrivedWords(item, t)}`) : "",
      " · ", h("span", { class: ["brief-owner", !item.owner && "brief-no-owner"] },
        item.owner ? t("brief.owner", { name: item.owner.name }) : t("brief.noOwner")),
      // nobody has it yet: the store's managers are who would (the brief's store rows know them)
      !item.owner && managersOf[item.item?.store]?.length
        ? h("span", { class: "muted brief-case-managers" },
          ` (${t("brief.managers", { names: managersOf[item.item.store].join(", ") })})`) : "",
      // the line is the way to act: it opens the case below, where it is taken and closed
      " ", h("span", { class: "brief-go" }, `${item.owner ? t("brief.open") : t("cases.take")} →`)),
    h("span", { class: "brief-excerpt" }, excerpt(item.item?.text || "")));
}

/** "palaute saapui 7.12. klo 19.06": when the feedback reached the service (and opened the case), always with
 * its day. Beside "tapahtui 5.12. klo 16.42" a bare "klo 19.06" (today's) read as an opening before the
 * incident, and "avattu vasta" (opened only) as the staff's delay and left open who opened it. */
function arrivedWords(item, t) {
  return t("brief.arrived", { time: formatDayTime(item.openedAt, t) });
}

function overdueWords(item, t) {
  const incident = toDate(item.item?.timestamp || item.openedAt).getTime();
  const after = spanWords(toDate(item.dueAt).getTime() - incident, t);
  // late before anyone could act: the words say so, so the warning is not read as the staff's delay
  const key = lateOnArrival(item) ? "brief.overdueOnArrival" : "brief.overdue";
  return t(key, { time: formatShortTime(item.dueAt, t), after });
}

/** The store's alerts, one click from the brief: its own view with the alert list open. */
function alertsLink(rise, where, t) {
  if (!rise.alerts) return "";
  const href = where.store ? `/?store=${encodeURIComponent(where.store)}#alerts-box` : "#alerts-box";
  return h("span", { class: "brief-rise-alerts" }, " · ", h("a", { href }, t("brief.riseAlerts", { n: rise.alerts })));
}

/** A department's rise says it is one ("osasto Kassa & palvelu"): beside the problems (queues, freshness)
 * a department's name read as one more problem. */
function riseLabel(rise, t) {
  const department = rise.key !== "alert" && !rise.key.startsWith("issue:");
  return department ? t("brief.department", { label: rise.label }) : rise.label;
}

function riseLine(rise, where, t) {
  return h("li", { class: ["brief-rise", rise.good && "brief-good"], dataset: { store: where.store || "", key: rise.key } },
    rise.good ? h("span", { class: "brief-good-word" }, `${t("brief.good")} `) : "",
    h("strong", { class: "brief-store" }, where.name), " · ",
    t("brief.rise", { label: riseLabel(rise, t), current: rise.current, previous: rise.previous }),
    h("span", { class: rise.good ? "brief-up-good" : "brief-up" }, ` +${rise.change}`),
    // the store's alerts this week, when they are this problem's: told here, not as a rise of their own
    alertsLink(rise, where, t),
    rise.clear ? "" : h("span", { class: "brief-chance muted" }, ` · ${t("brief.maybeChance")}`));
}

/** Who manages the store (its accounts' manager grants); nothing where the service has no accounts. */
function managersLine(row, t) {
  if (!Array.isArray(row.managers)) return "";
  return h("span", { class: ["brief-managers", !row.managers.length && "brief-no-manager"] }, " · ",
    row.managers.length ? t("brief.managers", { names: row.managers.join(", ") }) : t("brief.noManager"));
}

/** Notify routes by name and kind: "turva (sähköposti), kassat (Slack)". */
function routeNames(routes, t) {
  return routes.map((route) => `${route.name} (${t(`brief.digestKind.${route.kind}`)})`).join(", ");
}

/** Who is told at once of an alert that opens a case: the routes, or, with none, that the pages are the only
 * place those cases are read (a manager asks whether anyone but them knows of the urgent ones). */
function renderUrgent(brief, t) {
  const routes = brief.urgentRoutes;
  if (!Array.isArray(routes)) return show(el.urgent, false); // not said
  el.urgent.textContent = routes.length
    ? t("brief.urgentTo", { routes: routeNames(routes, t) }) : t("brief.urgentNowhere");
  el.urgent.dataset.routes = String(routes.length);
  el.urgent.classList.toggle("brief-urgent-unsent", !routes.length);
  show(el.urgent, true);
}

/** Where the morning digest goes (its hour and routes, or that it goes nowhere) and which stores' alerts of
 * the week are in it, each a link to that store's alert list: the digest is a message, not on this page. */
function renderDigest(brief, t) {
  const digest = brief.digest;
  if (!digest || !digest.categories.length) return show(el.digest, false);
  const where = digest.routes.length
    ? t("brief.digestTo", { hour: String(digest.hour).padStart(2, "0"), routes: routeNames(digest.routes, t) })
    : t("brief.digestNowhere");
  const stores = brief.stores.filter((row) => row.digestAlertItems > 0);
  const links = stores.flatMap((row, i) => [i ? ", " : "",
    h("a", { href: `/?store=${encodeURIComponent(row.store)}#alerts-box`, dataset: { store: row.store } },
      t("brief.digestStore", { name: row.name, n: row.digestAlertItems }))]);
  const categories = digest.categories.map((c) => t(`alert.${c}`)).join(", ");
  // "the morning digest" names a message; with no route to take it there is none, only other alerts
  const title = t(digest.routes.length ? "brief.digestTitle" : "brief.digestTitleUnsent", { categories });
  el.digest.replaceChildren(h("strong", null, title), " ", where, " ",
    stores.length ? h("span", { class: "brief-digest-week" }, t("brief.digestWeek"), " ", ...links, ".")
      : h("span", { class: "brief-digest-week" }, t("brief.digestNone")),
    // the setting's name is the administrator's, not the manager's: a small line of its own
    digest.routes.length ? "" : h("span", { class: "brief-digest-setting" }, t("brief.digestSetting")));
  el.digest.dataset.routes = String(digest.routes.length);
  // alerts that reach no one are a warning, not a footnote: a manager reads them here or nowhere
  el.digest.classList.toggle("muted", digest.routes.length > 0);
  el.digest.classList.toggle("brief-digest-unsent", !digest.routes.length);
  show(el.digest, true);
}

/** A rate as the whole per cent the status board shows too (half up). */
function percent(rate) {
  return Math.floor(rate * 100 + 0.5);
}

function renderQuality(rates, t) {
  if (!rates) return; // not answered: the line stays hidden
  const week = rates.thisWeek;
  el.quality.dataset.saved = String(week.saved);
  // a week without a saved proposal (history imported, no desk yet) has nothing to say on the first screen
  if (!week.saved) return show(el.quality, false);
  const parts = week.fields.filter((f) => QUALITY_ALWAYS.has(f.field) || f.corrected)
    .map((f) => t(`quality.field.${f.field}`, { pct: percent(f.rate) }));
  el.quality.textContent = `${t("quality.line", { parts: parts.join(", ") })} ${t("quality.saved", { n: week.saved })}`;
  show(el.quality, true);
}

function render(brief, cases, names, t) {
  const active = overdueFirst(cases.filter((c) => ACTIVE.has(c.state)));
  const late = active.filter((c) => dueOf(c)?.overdue);
  const overdue = late.length;
  // how the week's alerts and the cases relate: the urgent ones open a case, the digest's wait for the morning
  // (or, with no route to take the digest, for no one: the totals do not say it "goes" where the note says it doesn't)
  const digest = brief.totals.digestAlertItems || 0;
  const sent = !brief.digest || brief.digest.routes.length > 0;
  el.totals.textContent = t("brief.totals", {
    items: brief.totals.items, previous: brief.totals.previousItems, alerts: brief.totals.alertItems, open: active.length,
    overdue, onArrival: late.filter(lateOnArrival).length, urgent: Math.max(0, brief.totals.alertItems - digest),
    digest, sent,
  });
  el.totals.dataset.digest = String(digest);
  renderDigest(brief, t);
  el.totals.dataset.overdue = String(overdue);
  el.totals.dataset.items = String(brief.totals.items);
  el.totals.dataset.alerts = String(brief.totals.alertItems);
  el.totals.dataset.open = String(active.length);

  const topTier = active.length ? Math.max(...active.map((c) => c.tier ?? -1)) : null;
  const managersOf = Object.fromEntries(brief.stores.map((row) => [row.store, row.managers || []]));
  const shown = active.slice(0, ACT_SHOWN).map((c) => caseLine(c, names, t, topTier, managersOf));
  const more = active.length > ACT_SHOWN
    ? h("li", { class: "brief-more" }, h("a", { href: "#cases" }, t("brief.actMore", { n: active.length }))) : null;
  el.act.replaceChildren(...(shown.length ? shown : [h("li", { class: "muted" }, t("brief.actNone"))]), more || "");
  renderUrgent(brief, t);

  const rises = [];
  for (const row of brief.stores) for (const rise of row.rises) rises.push({ rise, where: row });
  if (!rises.length && brief.stores.length !== 1) {
    for (const rise of brief.totals.rises) rises.push({ rise, where: { store: "", name: t("brief.whole") } });
  }
  // the clear rises first (the brief's rule: `clear`), then the strongest
  rises.sort((a, b) => Number(b.rise.clear) - Number(a.rise.clear) || b.rise.zScore - a.rise.zScore);
  const listed = [...rises.filter((r) => !r.rise.good).slice(0, RISES_SHOWN), ...rises.filter((r) => r.rise.good).slice(0, GOOD_SHOWN)];
  el.changed.replaceChildren(...(listed.length
    ? listed.map(({ rise, where }) => riseLine(rise, where, t))
    : [h("li", { class: "muted" }, t("brief.changedNone"))]));
  // what "small" means, said once under the list when a line carries it
  const small = listed.some(({ rise }) => !rise.clear);
  el.chanceNote.textContent = small ? t("brief.chanceNote") : "";
  show(el.chanceNote, small);
  // seven days up to now, from the minute they start: two dates alone read as eight days
  // and where they end: an arrival in the week's last minutes reads as "just now", not as the page's own time
  el.heading.textContent = t("brief.headingDates", {
    from: formatShortTime(brief.windowFrom, t), to: formatDayTime(brief.windowTo, t), // "now" with its day
  });

  const openBy = {};
  for (const c of active) openBy[c.item?.store || ""] = (openBy[c.item?.store || ""] || 0) + 1;
  el.stores.replaceChildren(...brief.stores.map((row) => h("li", { class: "brief-store-row", dataset: { store: row.store } },
    h("a", { href: `/?store=${encodeURIComponent(row.store)}` }, row.name), " ",
    h("span", { class: "muted" }, t("brief.storeLine", {
      items: row.items, previous: row.previousItems, alerts: row.alertItems, open: openBy[row.store] || 0,
      digest: row.digestAlertItems || 0, sent,
    })),
    managersLine(row, t))));
  show(el.stores.parentElement, brief.stores.length > 1);
  show(el.section, true);
}

async function start() {
  let t = translator(initialLanguage());
  try {
    const schema = await getJson("/schema");
    if (schema && schema.language) t = translator(schema.language, schema.timezone);
  } catch {
    // the browser's language stays
  }
  applyStatic(el.section, t);
  const store = pageStore();
  const params = store ? { store } : {};
  let brief;
  let cases;
  let rates;
  try {
    [brief, cases, rates] = await Promise.all([
      getJson("/report/brief", { params }),
      getJson("/cases", { params: { ...params, limit: 1000 } }).then((body) => body.cases).catch(() => []),
      getJson("/report/corrections", { params }).catch(() => null),
    ]);
  } catch {
    return; // refused or absent: the report below says why (one place for that wording)
  }
  render(brief, cases, await storeNames(), t);
  renderQuality(rates, t);
  el.section.dataset.ready = "true";
}

start();
