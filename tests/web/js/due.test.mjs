// Unit tests of a case's due time in words (node --test).
import assert from "node:assert/strict";
import { test } from "node:test";

import { dueOf, dueWords, lateOnArrival, openedLater, openedNote, overdueFirst, spanWords } from "../../../feedback_intelligence/web/static/js/due.js";
import { translator } from "../../../feedback_intelligence/web/static/js/i18n.js";

const fi = translator("fi");
const en = translator("en");
const HAPPENED = Date.parse("2026-12-03T08:00:00Z");
const H = 3_600_000;

function item(state = "open", dueAfterH = 4) {
  return {
    ref: `live:${state}-${dueAfterH}`,
    state,
    openedAt: "2026-12-03T08:00:00.0000000Z",
    dueAt: new Date(HAPPENED + dueAfterH * H).toISOString(),
    item: { timestamp: "2026-12-03T08:00:00.0000000Z" },
  };
}

test("spans in words, whole minutes down", () => {
  assert.equal(spanWords(3 * H + 59 * 60_000 + 59_000, fi), "3 t 59 min");
  assert.equal(spanWords(51 * H, fi), "2 vrk 3 t");
  assert.equal(spanWords(5 * 60_000, en), "5 min");
  assert.equal(spanWords(26 * H, en), "1 d 2 h");
  // a zero last unit is left out: a deadline of whole hours reads "4 t"
  assert.equal(spanWords(4 * H, fi), "4 t");
  assert.equal(spanWords(48 * H + 30_000, fi), "2 vrk");
  assert.equal(spanWords(48 * H, en), "2 d");
});

test("due in, then overdue by, from the due instant on", () => {
  assert.equal(dueWords(item(), fi, HAPPENED + H), "ikä 1 t · erääntyy 3 t kuluttua");
  assert.equal(dueOf(item(), HAPPENED + 4 * H - 1).overdue, false);
  assert.equal(dueOf(item(), HAPPENED + 4 * H).overdue, true);
  assert.equal(dueWords(item(), en, HAPPENED + 5 * H + 5 * 60_000), "age 5 h 5 min · overdue by 1 h 5 min");
});

test("a closed case has no due words and is never overdue", () => {
  assert.equal(dueWords(item("handled"), fi, HAPPENED + 9 * H), null);
  assert.equal(dueOf(item("dismissed"), HAPPENED + 9 * H).overdue, false);
});

test("overdue first within a state, the server's order kept otherwise", () => {
  const serious = item("open", 4);
  const late = item("open", 2);
  const acknowledged = item("acknowledged", 1);
  const order = overdueFirst([serious, late, acknowledged], HAPPENED + 3 * H).map((c) => c.ref);
  assert.deepEqual(order, [late.ref, serious.ref, acknowledged.ref]);
  assert.deepEqual(overdueFirst([serious, late], HAPPENED).map((c) => c.ref), [serious.ref, late.ref]);
});

test("a case opened apart from its incident says so; one opened with it does not", () => {
  assert.equal(openedLater(item()), false);
  assert.equal(openedLater({ ...item(), openedAt: "2026-12-05T09:30:00Z" }), true); // imported two days later
  assert.equal(openedLater({ ...item(), item: undefined }), false); // no incident time: nothing to compare
});

test("a case an import opened past its deadline says it was late before it opened", () => {
  assert.equal(openedNote(item()), null); // opened with its incident
  const dueIn4h = item("open", 4);
  assert.equal(openedNote({ ...dueIn4h, openedAt: "2026-12-03T09:00:00Z" }), "cases.openedLater"); // within its 4 h
  assert.equal(openedNote({ ...dueIn4h, openedAt: "2026-12-05T09:30:00Z" }), "cases.openedPastDue"); // two days on
  assert.equal(openedNote({ ...dueIn4h, openedAt: "2026-12-05T09:30:00Z", dueAt: undefined }), "cases.openedLater");
  // late on arrival only where the case opened at or after its deadline
  assert.equal(lateOnArrival({ ...dueIn4h, openedAt: "2026-12-05T09:30:00Z" }), true);
  assert.equal(lateOnArrival({ ...dueIn4h, openedAt: "2026-12-03T09:00:00Z" }), false);
  assert.equal(lateOnArrival(item()), false);
});
