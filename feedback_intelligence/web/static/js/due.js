// A case's due time in words (ADR 0061). The server decides when a case is due (dueAt, by the one rule of
// services/case_due.py); the page says how far that is from its own clock, the one its words and its
// "overdue" mark read, so they never disagree on the screen.

import { toDate } from "./i18n.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const STILL_OPEN = new Set(["open", "acknowledged"]);

/** A span in words, whole minutes down: "2 vrk 3 t", "3 t 59 min", "5 min" (en: "2 d 3 h", …). */
export function spanWords(ms, t) {
  const whole = Math.max(0, Math.floor(ms / MINUTE)) * MINUTE;
  const d = Math.floor(whole / DAY);
  const h = Math.floor((whole % DAY) / HOUR);
  const m = Math.floor((whole % HOUR) / MINUTE);
  // a zero last unit is left out ("4 t", not "4 t 0 min"): deadlines are whole hours
  if (d) return h ? t("span.days", { d, h }) : t("span.wholeDays", { d });
  if (h) return m ? t("span.hours", { h, m }) : t("span.wholeHours", { h });
  return t("span.minutes", { m });
}

/** Whether the case opened apart from its incident (an import opens it days later): the one rule the case
 * list and the brief both say "case opened …" by. */
export function openedLater(item) {
  const at = item.item?.timestamp;
  return Boolean(at) && Math.abs(toDate(item.openedAt).getTime() - toDate(at).getTime()) >= MINUTE;
}

/** Whether the case was late already when it opened: an import opened it after its deadline, so the lateness
 * is the feedback's, not the staff's, and the case list and the brief say so rather than look ignored. */
export function lateOnArrival(item) {
  if (!openedLater(item)) return false;
  const due = toDate(item.dueAt).getTime();
  return !Number.isNaN(due) && toDate(item.openedAt).getTime() >= due;
}

/** What the line says of when the case opened, as an i18n key (null: it opened with its incident). */
export function openedNote(item) {
  if (!openedLater(item)) return null;
  return lateOnArrival(item) ? "cases.openedPastDue" : "cases.openedLater";
}

/** Is the case overdue at ``now`` (a closed case never is), and how far from its due time. */
export function dueOf(item, now = Date.now()) {
  const due = toDate(item.dueAt).getTime();
  if (!item.dueAt || Number.isNaN(due)) return null;
  const started = toDate(item.item?.timestamp || item.openedAt).getTime();
  return {
    open: STILL_OPEN.has(item.state),
    overdue: STILL_OPEN.has(item.state) && now >= due,
    left: due - now, // negative once overdue
    age: Number.isNaN(started) ? null : now - started,
  };
}

/** "Due in 3 h 59 min" or "Overdue by 1 h 5 min", with the case's age; null for a closed case. */
export function dueWords(item, t, now = Date.now()) {
  const due = dueOf(item, now);
  if (!due || !due.open) return null;
  const when = due.overdue
    ? t("cases.overdueBy", { span: spanWords(-due.left, t) })
    : t("cases.dueIn", { span: spanWords(due.left, t) });
  return due.age === null ? when : `${t("cases.age", { span: spanWords(due.age, t) })} · ${when}`;
}

/** Overdue cases first within their state, the server's order kept otherwise (a stable sort). */
export function overdueFirst(cases, now = Date.now()) {
  const states = [...new Set(cases.map((c) => c.state))]; // in the server's order
  const key = (c) => states.indexOf(c.state) * 2 + (dueOf(c, now)?.overdue ? 0 : 1);
  return [...cases].sort((a, b) => key(a) - key(b));
}
