// Unit tests of the desk's shed policy (node --test): pure delays and the retry loop with fakes.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  fetchWithShedRetry, parseRetryAfter, pollDelay, SHED_DEFAULTS, shedDelay,
} from "../../../feedback_intelligence/web/static/js/retry-policy.js";

const answer = (status, { retryAfter = null, body = null } = {}) => new Response(
  body === null ? null : JSON.stringify(body),
  { status, headers: retryAfter === null ? {} : { "Retry-After": String(retryAfter) } },
);
const busy = (opts = {}) => answer(503, { body: { error: "busy" }, ...opts });

function harness(answers, randoms = [0.5, 0.5]) {
  const calls = [];
  const slept = [];
  const queue = [...answers];
  const rnd = [...randoms];
  return {
    calls, slept,
    doFetch: async (attempt) => {
      calls.push(attempt);
      const next = queue.shift();
      if (next instanceof Error) throw next;
      return next;
    },
    options: { random: () => rnd.shift() ?? 0, sleep: async (ms) => { slept.push(ms); } },
  };
}

test("delays stay inside 300–800 ms then 700–1200 ms without Retry-After", () => {
  assert.equal(shedDelay(0, 0), 300);
  assert.equal(shedDelay(0, 0.999999) < 800, true);
  assert.equal(shedDelay(1, 0), 700);
  assert.equal(shedDelay(1, 0.999999) < 1200, true);
  assert.equal(shedDelay(0, 0.5), 550);
  for (let i = 0; i < 1000; i += 1) {
    const r = Math.random();
    const d0 = shedDelay(0, r);
    const d1 = shedDelay(1, r);
    assert.ok(d0 >= 300 && d0 <= 800, `d0=${d0}`);
    assert.ok(d1 >= 700 && d1 <= 1200, `d1=${d1}`);
  }
});

test("a longer Retry-After becomes the floor, the jitter still spreads clients, the cap holds", () => {
  assert.equal(shedDelay(0, 0, 1000), 1000);
  assert.equal(shedDelay(0, 0.5, 1000), 1250);
  assert.equal(shedDelay(1, 0.2, 2000), 2100);
  // A shorter Retry-After does not shorten our own floor.
  assert.equal(shedDelay(1, 0, 200), 700);
  // Huge Retry-After: capped so the clerk is told within seconds, never later than capMs.
  assert.equal(shedDelay(0, 0, 60000), SHED_DEFAULTS.capMs - SHED_DEFAULTS.jitterMs);
  assert.equal(shedDelay(0, 1, 60000), SHED_DEFAULTS.capMs);
  // Two clients told the same Retry-After do not come back at the same moment.
  assert.notEqual(shedDelay(0, 0.1, 1000), shedDelay(0, 0.7, 1000));
});

test("Retry-After parses seconds and HTTP dates; junk is ignored", () => {
  assert.equal(parseRetryAfter("2"), 2000);
  assert.equal(parseRetryAfter(" 0 "), 0);
  assert.equal(parseRetryAfter(null), null);
  assert.equal(parseRetryAfter(""), null);
  assert.equal(parseRetryAfter("soon"), null);
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(parseRetryAfter("Thu, 01 Jan 2026 00:00:03 GMT", now), 3000);
  assert.equal(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now), 0);
});

test("poll period is 20–30 s", () => {
  assert.equal(pollDelay(0), 20000);
  assert.equal(pollDelay(0.5), 25000);
  assert.equal(pollDelay(1), 30000);
});

test("503, 503, 200 → ok after exactly three attempts and two jittered waits", async () => {
  const hx = harness([busy(), busy(), answer(200, { body: { ok: true } })], [0.2, 0.9]);
  const result = await fetchWithShedRetry(hx.doFetch, hx.options);
  assert.equal(result.outcome, "ok");
  assert.equal(result.attempts, 3);
  assert.deepEqual(hx.calls, [0, 1, 2]);
  assert.deepEqual(hx.slept, [400, 1150]);
  assert.deepEqual(await result.response.json(), { ok: true });
});

test("always 503 → busy after exactly three attempts", async () => {
  const hx = harness([busy(), busy(), busy(), busy()]);
  const result = await fetchWithShedRetry(hx.doFetch, hx.options);
  assert.equal(result.outcome, "busy");
  assert.equal(result.attempts, 3);
  assert.equal(hx.slept.length, 2);
});

test("Retry-After from the server is honoured between attempts", async () => {
  const hx = harness([busy({ retryAfter: 2 }), busy({ retryAfter: 1 }), answer(200)], [0, 0]);
  const result = await fetchWithShedRetry(hx.doFetch, hx.options);
  assert.equal(result.outcome, "ok");
  assert.deepEqual(hx.slept, [2000, 1000]);
});

test("429 is never retried", async () => {
  const hx = harness([answer(429, { retryAfter: 30 }), answer(200)]);
  const result = await fetchWithShedRetry(hx.doFetch, hx.options);
  assert.equal(result.outcome, "rate_limited");
  assert.equal(result.attempts, 1);
  assert.deepEqual(hx.slept, []);
});

test("a model that is down (503 llm_unavailable) is not retried", async () => {
  const hx = harness([answer(503, { body: { error: "llm_unavailable" } }), answer(200)]);
  const result = await fetchWithShedRetry(hx.doFetch, hx.options);
  assert.equal(result.outcome, "unavailable");
  assert.equal(result.attempts, 1);
  // The body is still readable by the caller.
  assert.deepEqual(await result.response.json(), { error: "llm_unavailable" });
});

test("a 503 without a JSON body counts as busy", async () => {
  const hx = harness([answer(503), answer(503), answer(503)]);
  const result = await fetchWithShedRetry(hx.doFetch, hx.options);
  assert.equal(result.outcome, "busy");
  assert.equal(result.attempts, 3);
});

test("network error → its own outcome, no retry", async () => {
  const hx = harness([new TypeError("Failed to fetch"), answer(200)]);
  const result = await fetchWithShedRetry(hx.doFetch, hx.options);
  assert.equal(result.outcome, "network");
  assert.equal(result.attempts, 1);
});

test("other statuses are failures, not retried", async () => {
  for (const status of [400, 404, 500, 502]) {
    const hx = harness([answer(status), answer(200)]);
    const result = await fetchWithShedRetry(hx.doFetch, hx.options);
    assert.equal(result.outcome, "failed");
    assert.equal(result.attempts, 1);
  }
});

test("an abort is passed on, not turned into a message", async () => {
  const abort = new DOMException("aborted", "AbortError");
  const hx = harness([abort]);
  await assert.rejects(fetchWithShedRetry(hx.doFetch, hx.options), { name: "AbortError" });
});

test("onRetry reports each retry with its delay", async () => {
  const seen = [];
  const hx = harness([busy(), busy(), busy()], [0, 0]);
  await fetchWithShedRetry(hx.doFetch, { ...hx.options, onRetry: (info) => seen.push(info) });
  assert.deepEqual(seen, [{ attempt: 1, delay: 300 }, { attempt: 2, delay: 700 }]);
});
