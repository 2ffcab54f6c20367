// Unit tests of the pages' time formatting (node --test): times are shown in the service's zone.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  formatDayTime, formatShortTime, formatTime, translator, useTimeZone,
} from "../../../feedback_intelligence/web/static/js/i18n.js";

function finnish(zone) {
  const t = translator("fi");
  useTimeZone(t, zone);
  return t;
}

test("a time is the shop's clock, whatever zone the browser runs in", () => {
  const at = "2026-03-03T10:05:00.0000000+00:00";
  assert.equal(formatTime(at, finnish("Europe/Helsinki"), false), "12.05");
  assert.equal(formatTime(at, finnish("America/New_York"), false), "05.05");
});

test("an unknown zone keeps the browser's", () => {
  const t = finnish("Mars/Olympus");
  assert.equal(t.timeZone, undefined);
});

test("'today' is the shop's day: a time shows its date when the shop's day differs", () => {
  const t = finnish("Europe/Helsinki");
  const now = new Date("2026-03-03T21:30:00Z"); // 23.30 on the 3rd in Helsinki
  // a time alone says "klo": "22.00" alone reads as a date in Finnish
  assert.equal(formatShortTime("2026-03-03T20:00:00Z", t, now), "klo 22.00"); // the same Helsinki day
  assert.equal(formatShortTime("2026-03-03T20:00:00Z", translator("en", "Europe/Helsinki"), now), "22:00");
  // 00.30 on the 4th in Helsinki but still the 3rd in UTC: not today's, so its date is shown
  const late = new Date("2026-03-03T21:59:00Z");
  assert.match(formatShortTime("2026-03-03T22:30:00Z", t, late), /4\.3\./);
  // a day and time always has its day, today's too (the brief's opening beside an incident days before it)
  assert.equal(formatDayTime("2026-03-03T20:00:00Z", t), "3.3. klo 22.00");
  assert.equal(formatDayTime("2026-03-03T20:00:00Z", t), formatShortTime("2026-03-03T20:00:00Z", t, new Date("2026-03-05T10:00:00Z")));
});

test("a translator made with the service's zone shows its clock from the start", () => {
  const at = "2026-03-03T10:05:00.0000000+00:00";
  assert.equal(formatTime(at, translator("fi", "Europe/Helsinki"), false), "12.05");
  assert.equal(translator("fi", "Mars/Olympus").timeZone, undefined);
});

test("the account page and the password rule speak Finnish and English, each its own words", () => {
  const en = translator("en");
  const fi = translator("fi");
  const params = { n: 2, min: 8, recommended: 15, max: 1024, name: "Pia", username: "pia", list: "x", role: "x",
    store: "s1", status: 500 };
  const keys = [
    "session.signOut", "account.title", "account.heading", "account.signedInAs", "account.roles", "account.noRoles",
    "account.grantStore", "account.grantChain", "account.role.clerk", "account.role.manager", "account.role.operator",
    "account.notSignedIn", "account.serverAway", "password.heading", "password.current", "password.new",
    "password.repeat", "password.hint", "password.submit", "password.mismatch", "password.changed", "password.wrong",
    "password.throttled", "password.elsewhere", "password.failed", "password.network", "err.password_too_short",
    "err.password_too_long", "err.password_blank", "err.password_repeated", "err.password_is_username",
    "err.password_common",
  ];
  for (const key of keys) {
    assert.ok(en.has(key), key);
    assert.notEqual(fi(key, params), en(key, params), key);
    assert.doesNotMatch(fi(key, params), /\{\w+\}/, key); // every placeholder filled
  }
  assert.equal(en("password.changed", { n: 0 }), "Password changed.");
  assert.equal(fi("password.changed", { n: 1 }), "Salasana vaihdettu. Toinen kirjautumisesi päättyi.");
  assert.equal(en("password.changed", { n: 3 }), "Password changed. Your 3 other sessions were signed out.");
});

test("carrying a case to its end speaks Finnish and English, each its own words", () => {
  const en = translator("en");
  const fi = translator("fi");
  const params = { time: "3.12.2026 klo 10.27", name: "Pia", ref: "live:desk-1" };
  const keys = [
    "cases.take", "cases.nameNeeded", "cases.happened", "cases.openedLater", "cases.openedPastDue", "cases.noOwner", "cases.ownerIs",
    "cases.ownerTyped", "cases.ownerLabel", "cases.setOwner", "cases.story", "cases.notes", "cases.noNotes",
    "cases.note", "cases.addNote", "cases.noteNeeded", "cases.noteSaved", "cases.history", "cases.closure",
    "cases.rootCause", "cases.rootCause.pick", "cases.rootCauseText", "cases.resolution", "cases.confirmHandle",
    "cases.rootCauseNeeded", "cases.rootCauseTextNeeded", "cases.resolutionNeeded", "cases.dismissedBecause",
    "cases.notFound", "audit.action.case.root_cause",
  ];
  for (const key of keys) {
    assert.ok(en.has(key), key);
    assert.notEqual(fi(key, params), en(key, params), key);
    assert.doesNotMatch(fi(key, params), /\{\w+\}/, key);
  }
  assert.equal(fi("cases.happened", params), "Tapahtui 3.12.2026 klo 10.27");
});

test("what the manager's page says of a digest nobody gets, a period not compared and the folded charts", () => {
  const en = translator("en");
  const fi = translator("fi");
  const params = { n: 5, names: "Hevi, Einekset", now: 17, time: "klo 08.07" };
  const keys = ["brief.digestNowhere", "brief.digestSetting", "series.totalNow", "series.more", "series.headingDayAlone",
    "series.headingWeekAlone", "cases.openedPastDue"];
  for (const key of keys) {
    assert.ok(en.has(key), key);
    assert.doesNotMatch(fi(key, params), /\{\w+\}/, key);
    assert.doesNotMatch(en(key, params), /\{\w+\}/, key);
  }
  // a manager is told whom to ask; the setting's name is only in the administrator's line
  for (const t of [fi, en]) {
    assert.doesNotMatch(t("brief.digestNowhere"), /FI_NOTIFY_CHANNELS/);
    assert.match(t("brief.digestSetting"), /FI_NOTIFY_CHANNELS/);
  }
  assert.match(fi("brief.digestNowhere"), /Pyydä palvelun ylläpitäjää/);
  assert.equal(fi("series.totalNow", params), "nyt 17"); // no "ennen" where nothing is compared
  assert.equal(fi("series.more", { n: 1, names: "Hevi" }), "Näytä 1 muu kaavio: Hevi");
  assert.equal(fi("series.more", params), "Näytä 5 muuta kaaviota: Hevi, Einekset");
  assert.equal(en("series.more", { n: 1, names: "Produce" }), "Show 1 more chart: Produce");
  // the chance note says in plain words which rises it never calls small (a reader found "a rise the week's
  // alerts tell" cryptic)
  assert.match(fi("brief.chanceNote"), /Nousua, jonka vieressä on sen hälytykset, ei merkitä pieneksi\./);
  assert.equal(fi("cases.openedPastDue", params), "tapaus avattu vasta klo 08.07 tiedon tultua, määräajan jo mentyä");
});

test("the brief's totals do not send the digest anywhere when no route takes it", () => {
  const counts = { items: 260, previous: 206, alerts: 11, urgent: 2, digest: 9, open: 2, overdue: 2 };
  for (const lang of ["fi", "en"]) {
    const t = translator(lang);
    const sent = t("brief.totals", counts);
    const unsent = t("brief.totals", { ...counts, sent: false });
    assert.match(sent, lang === "fi" ? /9 muuta menee aamun koosteeseen/ : /9 others go into the morning digest/);
    assert.doesNotMatch(unsent, /menee aamun koosteeseen|go into the morning digest/);
    assert.match(unsent, lang === "fi" ? /9 muuta näkyy vain tällä sivulla \(ilmoituksia ei ole otettu käyttöön\)/ : /9 others show only on this page \(notifications are off\)/);
  }
});
