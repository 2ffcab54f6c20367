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
