// Unit tests of the alerts' tile: how the window's alert items split, past the alert list's cap (node --test).
import assert from "node:assert/strict";
import { test } from "node:test";

import { alertSplit, alertsWhat } from "../../../feedback_intelligence/web/static/js/charts.js";
import { translator } from "../../../feedback_intelligence/web/static/js/i18n.js";

const fi = translator("fi");
const rows = (n) => Array.from({ length: n }, (_, i) => ({ feedbackId: `a${i}`, deterministicHits: [] }));

test("every alert listed: in a case, the digest's and the rest add up to the window's alerts", () => {
  const split = alertSplit(rows(10), { open: 1, handled: 1, none: 8 }, 7, 10);
  assert.deepEqual(split, { total: 10, shown: 10, withCase: 2, digest: 7, other: 1 });
  assert.equal(alertsWhat(split, fi),
    "2 kiireellistä: tapauksessa · 7 ei-kiireellistä, ei tapausta · 1 ilman tapausta: tuotu jälkikäteen tai mallin löytämä");
});

test("a list stopped at its cap: the digest's are the window's, the cases the listed items'", () => {
  // 120 alert items, 3 listed (FI_REPORT_MAX_ITEMS), 100 of them the digest's (the report's digestAlertItems)
  const split = alertSplit(rows(3), { open: 2, none: 1 }, 100, 120);
  assert.equal(split.digest, 100);
  assert.equal(alertsWhat(split, fi), "100 ei-kiireellistä, ei tapausta · uusimmista 3: 2 kiireellistä: tapauksessa");
});

test("a list stopped at its cap with the digest's count unsaid: only the listed items' cases are told", () => {
  // the report counts the digest's items only when its alert list holds every alert item of the window
  const split = alertSplit(rows(3), { open: 2, none: 1 }, null, 120);
  assert.equal(split.other, 0);
  assert.equal(alertsWhat(split, fi), "uusimmista 3: 2 kiireellistä: tapauksessa");
  assert.doesNotMatch(alertsWhat(split, fi), /koosteeseen|NaN|null/);
});
