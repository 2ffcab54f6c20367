// Unit tests of the management view's URL filters (node --test).
import assert from "node:assert/strict";
import { test } from "node:test";

import { filterParams, filtersFromSearch, searchWithFilters } from "../../../feedback_intelligence/web/static/js/filters.js";

test("the URL's filters are read by their contract names, trimmed, empty ones dropped", () => {
  assert.deepEqual(filtersFromSearch("?category=hevi&q=%20maito%20&severity=&other=x"), { category: "hevi", q: "maito" });
});

test("only the set filters become report parameters, in the contract's order", () => {
  assert.deepEqual(Object.keys(filterParams({ q: "x", source: "desk", store: "", type: "praise" })),
    ["type", "source", "q"]);
});

test("the filters replace their own parameters and keep the others", () => {
  assert.equal(searchWithFilters("?lang=fi&category=hevi", { sentiment: "negative" }), "?lang=fi&sentiment=negative");
  assert.equal(searchWithFilters("?category=hevi", {}), "");
});

test("a pasted search is cut to 200 characters", () => {
  assert.equal(filtersFromSearch(`?q=${"a".repeat(500)}`).q.length, 200);
});

test("the inbox's alert and channel filters travel in the URL like the others", () => {
  assert.deepEqual(filtersFromSearch("?alert=any&channel=live&store=s1"), { alert: "any", channel: "live", store: "s1" });
  assert.equal(searchWithFilters("", { channel: "corpus", alert: "food_safety" }), "?alert=food_safety&channel=corpus");
});

test("the issue filter is one of the contract's names, right after the category", () => {
  assert.deepEqual(filtersFromSearch("?issue=freshness_quality&store=s1"), { issue: "freshness_quality", store: "s1" });
  assert.deepEqual(Object.keys(filterParams({ store: "s1", issue: "price", category: "hevi" })),
    ["category", "issue", "store"]);
});
