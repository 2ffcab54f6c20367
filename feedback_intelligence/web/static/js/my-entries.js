// "Tänään tallentamani": the entries this clerk saved today, with their alerts, each with "muokkaa" and
// "poista" while the service still lets them change it (ADR 0035). GET /live/feedback?mine=true answers
// `changeable` and `changeableUntil` from the one change rule; a refusal (403) is said as the service
// coded it, so the page never guesses the rule.
import { getJson, request } from "./api.js";
import { h, replace, show } from "./dom.js";
import { editForm } from "./entry-edit.js";
import { formatTime } from "./i18n.js";
import { startOfToday } from "./window.js";

const REFUSALS = {
  correction_not_yours: "mine.notYours",
  correction_window_passed: "mine.windowPassed",
  correction_forbidden: "mine.forbidden",
  store_forbidden: "mine.forbidden", // an entry of a store (or none) the person's roles do not reach
};

/**
 * Load and render the list into ``box``; ``ctx`` = {t, labels, params, onChange}. Returns the entries.
 * "Today" is the shop's day (``ctx.t.timeZone``, the service's FI_TIMEZONE), as on every other page.
 */
export async function loadMine(box, ctx) {
  let items;
  const from = startOfToday(ctx.t.timeZone).toISOString();
  try {
    items = await getJson("/live/feedback", { params: { mine: "true", from, limit: 200, ...ctx.params } });
  } catch {
    replace(box.list, h("li", { class: "mine-empty" }, ctx.t("mine.unavailable")));
    return null;
  }
  renderMine(box, items, ctx);
  return items;
}

let lapseTimer = null; // reloads the list when the first "muokkaa" lapses, so no dead button stays
const confirmed = new Map(); // entry id -> the fields of its last correction, said once after the reload

export function renderMine(box, items, ctx) {
  const t = ctx.t;
  show(box.section, true);
  clearTimeout(lapseTimer);
  const lapses = items.map((i) => Date.parse(i.changeableUntil || "")).filter((ms) => ms > Date.now());
  // capped: a timer past 2^31 ms would fire at once (FI_CORRECTION_WINDOW_S may be days)
  if (lapses.length) lapseTimer = setTimeout(ctx.onChange, Math.min(Math.min(...lapses) - Date.now() + 1000, 6 * 3600e3));
  if (!items.length) {
    replace(box.list, h("li", { class: "mine-empty" }, t("mine.empty")));
    return;
  }
  replace(box.list, ...items.map((item) => entryRow(item, ctx)));
}

function entryRow(item, ctx) {
  const { t, labels } = ctx;
  const s = item.structure;
  const meta = [formatTime(item.createdAt, t, false)];
  if (s) meta.push(labels.category(s.category), labels.severity(s.severity));
  const message = h("p", { class: "message", role: "status", "aria-live": "polite" });
  const say = (key, kind = "warn", params = {}) => {
    message.textContent = t(key, params);
    message.dataset.kind = kind;
  };
  if (confirmed.has(item.id)) {
    const fields = confirmed.get(item.id).map((name) => (name === "category" ? labels.categoryFieldWord
      : t(name === "text" ? "mine.textWord" : `field.${name}`).toLowerCase()));
    confirmed.delete(item.id);
    say("mine.corrected", "ok", { fields: fields.join(", ") });
  }
  const row = h("li", { class: "mine-item", "data-id": item.id },
    h("p", { class: "mine-meta" }, meta.join(" · ")),
    s ? h("p", { class: "mine-fields" }, [labels.type(s.type), s.theme,
      s.sentiment ? labels.sentiment(s.sentiment) : null].filter(Boolean).join(" · ")) : null,
    h("p", { class: "mine-text" }, item.text),
    item.alerts.length
      ? h("p", { class: "mine-alerts" },
        t("mine.alerts", { list: [...new Set(item.alerts.map((a) => labels.alert(a.category)))].join(", ") }))
      : null);
  if (!item.changeable) {
    row.append(h("p", { class: "mine-locked hint" }, t("mine.locked")), message);
    return row;
  }
  const form = correctionForm(item, ctx, say);
  let armed = false;
  const edit = h("button", { type: "button", class: "btn mine-edit", "aria-label": t("mine.editOne",
    { text: item.text.length > 40 ? `${item.text.slice(0, 39)}…` : item.text }) }, t("mine.edit"));
  const erase = h("button", { type: "button", class: "btn mine-erase" }, t("mine.erase"));
  edit.addEventListener("click", () => {
    show(form, true);
    form.querySelector("textarea").focus();
  });
  erase.addEventListener("click", async () => {
    if (!armed) {
      armed = true;
      erase.textContent = t("mine.confirmErase");
      return;
    }
    const response = await request(`/live/feedback/${encodeURIComponent(item.id)}`, { method: "DELETE" })
      .catch(() => null);
    if (await refused(response, say)) return;
    ctx.onChange();
  });
  const until = item.changeableUntil
    ? h("p", { class: "mine-until hint" }, t("mine.until", { time: formatTime(item.changeableUntil, t, false) }))
    : null;
  // Element.append writes a null as the text "null": only what exists goes in
  row.append(...[until, h("div", { class: "actions" }, edit, erase), form, message].filter(Boolean));
  return row;
}

/** Every field of the entry, corrected within the window; the confirmation outlives the list's reload. */
function correctionForm(item, ctx, say) {
  return editForm(item, {
    t: ctx.t,
    labels: ctx.labels,
    say,
    onSubmit: async (changes) => {
      const response = await request(`/live/feedback/${encodeURIComponent(item.id)}`, { method: "PATCH", body: changes })
        .catch(() => null);
      if (await refused(response, say)) return undefined;
      confirmed.set(item.id, Object.keys(changes));
      return ctx.onChange();
    },
  });
}

/** Say why a change did not go through; false when it did. */
async function refused(response, say) {
  if (response && response.ok) return false;
  if (!response) {
    say("mine.failed", "error");
  } else if (response.status === 403) {
    const body = await response.json().catch(() => ({}));
    say(REFUSALS[body.error] || "mine.forbidden");
  } else if (response.status === 410 || response.status === 404) {
    say("mine.gone");
  } else {
    say("mine.failed", "error");
  }
  return true;
}
