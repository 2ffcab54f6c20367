// "Tänään tallentamani" starts at the shop's midnight (FI_TIMEZONE), not UTC's or the browser's.
import assert from "node:assert/strict";
import { test } from "node:test";

import { startOfToday } from "../../../feedback_intelligence/web/static/js/window.js";

test("today starts at the shop's midnight, whatever the moment's UTC date", () => {
  // 23.30 UTC on 1 December is already 2 December in Helsinki (UTC+2)
  const lateUtc = new Date(Date.UTC(2026, 11, 1, 23, 30));
  assert.equal(startOfToday("Europe/Helsinki", lateUtc).toISOString(), "2026-12-01T22:00:00.000Z");
});

test("the same moment is another day in New York", () => {
  const lateUtc = new Date(Date.UTC(2026, 11, 1, 23, 30));
  assert.equal(startOfToday("America/New_York", lateUtc).toISOString(), "2026-12-01T05:00:00.000Z");
});

test("without a zone it is the browser's local midnight", () => {
  const afternoon = new Date(2026, 11, 1, 15, 30);
  assert.equal(startOfToday(undefined, afternoon).toISOString(), new Date(2026, 11, 1).toISOString());
});
