// The management view's report window: pure, so it can be tested without a browser.

const DAY_MS = 24 * 60 * 60 * 1000;

/** A local date input value ("2026-05-04") → Date at local midnight, or null. */
function localDay(value) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(value || ""));
  if (!m) return null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isNaN(d.getTime()) ? null : d;
}

/**
 * choice: "today" | "7" | "30" | any number of days as text | "custom".
 * Returns {from: Date, to: Date} or {error: i18n key}.
 * today = local midnight → now; N days = now − N·24 h → now; custom = from-day 00:00 → to-day 23:59:59.999 (local).
 */
export function reportWindow(choice, { now = new Date(), fromDay = "", toDay = "" } = {}) {
  if (choice === "today") {
    return { from: new Date(now.getFullYear(), now.getMonth(), now.getDate()), to: now };
  }
  if (choice === "custom") {
    const from = localDay(fromDay);
    const toStart = localDay(toDay);
    if (!from || !toStart) return { error: "window.needDates" };
    const to = new Date(toStart.getFullYear(), toStart.getMonth(), toStart.getDate(), 23, 59, 59, 999);
    if (from > to) return { error: "window.order" };
    return { from, to };
  }
  const days = Number(choice);
  if (!Number.isFinite(days) || days <= 0) return { error: "window.needDates" };
  return { from: new Date(now.getTime() - days * DAY_MS), to: now };
}
