// "Tänään tallentamani" starts at the clerk's local midnight, not UTC's.
import assert from "node:assert/strict";
import { test } from "node:test";

import { startOfToday } from "../../../feedback_intelligence/web/static/js/my-entries.js";

test("today starts at local midnight", () => {
  const afternoon = new Date(2026, 11, 1, 15, 30);
  assert.equal(startOfToday(afternoon), new Date(2026, 11, 1, 0, 0, 0, 0).toISOString());
});

test("just after midnight is already the new day", () => {
  const early = new Date(2026, 11, 2, 0, 0, 1);
  assert.equal(startOfToday(early), new Date(2026, 11, 2).toISOString());
});
