// The report's issue groups (ADR 0055): a problem across departments, where it is reported (each store with
// its own trend, so a spike in one store shows), and its departments and themes as facets. Pure DOM
// building from the report's `issues`; every count opens the drill-in narrowed to it.
import { h } from "./dom.js";
import { formatShortTime } from "./i18n.js";

const RISING = new Set(["growing", "worsening"]);

/** A count or name that opens the drill-in; on paper, where nothing is pressed, the same words as text. */
function drillButton(text, title, narrowing, ctx, props = {}) {
  const button = h("button", { type: "button", class: "btn btn-link issue-drill", ...props }, text);
  if (ctx.drill) button.addEventListener("click", () => ctx.drill(ctx.t("drill.title", { title }), narrowing, button));
  return h("span", { class: "issue-drill-wrap" }, button, h("span", { class: "print-inline" }, text));
}

function storeRow(group, store, ctx) {
  const t = ctx.t;
  const name = store.store ? ((ctx.storeNames || {})[store.store] || store.store) : t("issues.noStore");
  const rising = RISING.has(store.direction);
  const title = `${group.title} · ${name}`;
  const narrowing = { issue: group.issue, ...(store.store ? { store: store.store } : {}) };
  return h("li", { class: ["issue-store", rising && "issue-store-rising"], dataset: { store: store.store || "" } },
    drillButton(name, title, narrowing, ctx, { "data-count": String(store.count) }),
    h("span", { class: "issue-count" }, ` ${store.count}`),
    h("span", { class: "issue-halves" }, ` (${t("issues.halves", { first: store.firstHalf, second: store.secondHalf })})`),
    rising ? h("span", { class: "issue-rising" }, ` ${t("issues.rising")}`) : null);
}

function facets(label, entries, narrowing, group, ctx) {
  if (!entries || !entries.length) return null;
  return h("p", { class: "issue-facets" }, h("span", { class: "issue-facet-label" }, `${label}: `),
    ...entries.flatMap((facet, n) => [n ? ", " : "",
      narrowing ? drillButton(`${facet.label} ${facet.count}`, `${group.title} · ${facet.label}`,
        { issue: group.issue, ...narrowing(facet) }, ctx)
        : h("span", { class: "issue-theme" }, `${facet.label} ${facet.count}`)]));
}

/** One issue group's card: title, count and trend, its stores, then its departments and themes. */
export function issueCard(group, ctx) {
  const t = ctx.t;
  // over several stores the group's trend is their sum: "stable" above a store marked rising read as a contradiction
  const several = (group.stores || []).length > 1;
  const trend = group.directionLabel
    ? ` · ${t(several ? "issues.trendStores" : "section.trend", { label: group.directionLabel })}` : "";
  return h("article", { class: "issue", dataset: { issue: group.issue, count: String(group.count) } },
    h("h3", { class: "issue-title" },
      drillButton(group.title, group.title, { issue: group.issue }, ctx)),
    h("p", { class: "issue-meta" }, `${t("section.count", { n: group.count })}${trend}`),
    h("ul", { class: "issue-stores" }, (group.stores || []).map((store) => storeRow(group, store, ctx))),
    facets(t("issues.departments"), group.categories, (facet) => ({ category: facet.key }), group, ctx),
    facets(t("issues.themes"), group.themes, null, group, ctx));
}

/** What the brackets after a store's count are: the same count in the window's two halves, and where they
 * meet (the report's `midpoint`, mid-day as often as not); "" for a report that does not say. */
export function halvesNote(report, t) {
  return report.midpoint ? t("issues.halvesNote", { at: formatShortTime(report.midpoint, t) }) : "";
}

/** The section's cards, biggest first as the report orders them. */
export function issueCards(groups, ctx) {
  return (groups || []).map((group) => issueCard(group, ctx));
}
