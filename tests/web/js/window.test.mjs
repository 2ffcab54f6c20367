// Unit tests of the management view's window choices (node --test).
import assert from "node:assert/strict";
import { test } from "node:test";

import { reportWindow } from "../../../feedback_intelligence/web/static/js/window.js";

const now = new Date(2026, 4, 14, 15, 30, 0); // local time

test("today is local midnight to now", () => {
  const w = reportWindow("today", { now });
  assert.equal(w.from.getTime(), new Date(2026, 4, 14).getTime());
  assert.equal(w.to.getTime(), now.getTime());
});

test("N days is now minus N·24 h", () => {
  assert.equal(now - reportWindow("7", { now }).from, 7 * 86400000);
  assert.equal(now - reportWindow("30", { now }).from, 30 * 86400000);
});

test("custom runs from the first day's midnight to the last day's final millisecond", () => {
  const w = reportWindow("custom", { now, fromDay: "2026-05-01", toDay: "2026-05-03" });
  assert.equal(w.from.getTime(), new Date(2026, 4, 1).getTime());
  assert.equal(w.to.getTime(), new Date(2026, 4, 3, 23, 59, 59, 999).getTime());
});

test("custom needs both days, in order", () => {
  assert.deepEqual(reportWindow("custom", { now, fromDay: "2026-05-01" }), { error: "window.needDates" });
  assert.deepEqual(reportWindow("custom", { now, toDay: "2026-05-01" }), { error: "window.needDates" });
  assert.deepEqual(reportWindow("custom", { now, fromDay: "2026-05-04", toDay: "2026-05-01" }),
    { error: "window.order" });
  // One single day is fine.
  assert.ok(reportWindow("custom", { now, fromDay: "2026-05-04", toDay: "2026-05-04" }).from);
});

test("with the shop's zone, today begins at the shop's midnight, whatever the browser's zone", () => {
  const late = new Date("2026-03-03T22:30:00Z"); // 00.30 on the 4th in Helsinki
  const w = reportWindow("today", { now: late, zone: "Europe/Helsinki" });
  assert.equal(w.from.toISOString(), "2026-03-03T22:00:00.000Z");
  assert.equal(w.to.getTime(), late.getTime());
  const ny = reportWindow("today", { now: late, zone: "America/New_York" }); // 17.30 on the 3rd there
  assert.equal(ny.from.toISOString(), "2026-03-03T05:00:00.000Z");
});

test("custom days are the shop's, a day the clocks change included", () => {
  // Helsinki moves to summer time on 2026-03-29: that day has 23 hours
  const w = reportWindow("custom", { fromDay: "2026-03-29", toDay: "2026-03-29", zone: "Europe/Helsinki" });
  assert.equal(w.from.toISOString(), "2026-03-28T22:00:00.000Z");
  assert.equal(w.to.toISOString(), "2026-03-29T20:59:59.999Z");
  const autumn = reportWindow("custom", { fromDay: "2026-10-25", toDay: "2026-10-25", zone: "Europe/Helsinki" });
  assert.equal(autumn.to - autumn.from + 1, 25 * 3600000);
});

test("a day that does not exist is refused", () => {
  assert.deepEqual(reportWindow("custom", { fromDay: "2026-02-30", toDay: "2026-03-01" }), { error: "window.needDates" });
});
