// The management view's report window: pure, so it can be tested without a browser.

const DAY_MS = 24 * 60 * 60 * 1000;

/** The zone's offset from UTC at the instant ``ms``: its wall clock there, read as UTC, minus the instant. */
function offsetAt(ms, zone) {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric",
    hour: "numeric", minute: "numeric", second: "numeric",
  }).formatToParts(new Date(ms));
  const p = Object.fromEntries(parts.map((part) => [part.type, Number(part.value)]));
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - ms;
}

/** The instant the day (y, m 1-based, d; overflow rolls over) begins in ``zone``; the browser's own without one. */
function dayStart(y, m, d, zone) {
  if (!zone) return new Date(y, m - 1, d);
  const wall = Date.UTC(y, m - 1, d);
  const first = wall - offsetAt(wall, zone);
  return new Date(wall - offsetAt(first, zone)); // the offset at the day's start, across a clock change
}

/** Today's (y, m, d) in ``zone`` (the browser's without one). */
function dayOf(now, zone) {
  if (!zone) return [now.getFullYear(), now.getMonth() + 1, now.getDate()];
  const local = new Date(now.getTime() + offsetAt(now.getTime(), zone));
  return [local.getUTCFullYear(), local.getUTCMonth() + 1, local.getUTCDate()];
}

/** The instant today began in ``zone`` (the service's FI_TIMEZONE; the browser's own zone without one). */
export function startOfToday(zone = undefined, now = new Date()) {
  return dayStart(...dayOf(now, zone), zone);
}

/** A date input value ("2026-05-04") → [y, m, d], or null. */
function dayParts(value) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(value || ""));
  if (!m) return null;
  const parts = [Number(m[1]), Number(m[2]), Number(m[3])];
  const check = new Date(Date.UTC(parts[0], parts[1] - 1, parts[2]));
  return check.getUTCMonth() === parts[1] - 1 && check.getUTCDate() === parts[2] ? parts : null;
}

/**
 * choice: "today" | "7" | "30" | any number of days as text | "custom".
 * Returns {from: Date, to: Date} or {error: i18n key}.
 * Days are the shop's: ``zone`` is the service's FI_TIMEZONE (the browser's own zone without one).
 * today = the day's midnight → now; N days = now − N·24 h → now; custom = from-day 00:00 → to-day's last
 * millisecond (a day of 23 or 25 hours where the clocks change).
 */
export function reportWindow(choice, { now = new Date(), fromDay = "", toDay = "", zone = undefined } = {}) {
  if (choice === "today") {
    return { from: startOfToday(zone, now), to: now };
  }
  if (choice === "custom") {
    const first = dayParts(fromDay);
    const last = dayParts(toDay);
    if (!first || !last) return { error: "window.needDates" };
    const from = dayStart(...first, zone);
    const to = new Date(dayStart(last[0], last[1], last[2] + 1, zone).getTime() - 1);
    if (from > to) return { error: "window.order" };
    return { from, to };
  }
  const days = Number(choice);
  if (!Number.isFinite(days) || days <= 0) return { error: "window.needDates" };
  return { from: new Date(now.getTime() - days * DAY_MS), to: now };
}
