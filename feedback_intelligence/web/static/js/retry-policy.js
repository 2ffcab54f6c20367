// The desk's answer to a shed (HTTP 503 "busy"): a couple of spread-out retries, then an honest message.
//
// Pure and dependency-free so it can be tested without a browser (node --test) and in one.
//
//  * At most `maxRetries` (2) automatic retries after the first attempt, only for a 503 that is a
//    shed ("busy"). A 503 whose JSON body says "llm_unavailable" means the model is down, not busy:
//    retrying would only add waiting, so it ends at once with its own outcome.
//  * Retry k (k = 0, 1) waits  floor_k + random()·jitterMs,  floor_k = max(baseMs + k·stepMs, Retry-After)
//    with the floor capped at capMs − jitterMs. Without Retry-After that is 300–800 ms, then 700–1200 ms.
//    The random part is always added, also on top of the server's Retry-After, so a roomful of desks
//    shed at the same moment do not come back in lockstep.
//  * A 429 (rate limit) is never retried; a network failure is never retried.
//  * `onRetry` runs on the first shed already, so a page can offer its ways out at once while the
//    retries go on in the background; `signal` stops them (the clerk chose another way).

export const SHED_DEFAULTS = Object.freeze({
  maxRetries: 2,
  baseMs: 300,
  stepMs: 400,
  jitterMs: 500,
  capMs: 4000,
});

/** Retry-After (delta-seconds or an HTTP date) in milliseconds, or null when absent or unreadable. */
export function parseRetryAfter(value, nowMs = Date.now()) {
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  if (text === "") return null;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const when = Date.parse(text);
  if (Number.isNaN(when)) return null;
  return Math.max(0, when - nowMs);
}

/** Delay before retry number `attempt` (0-based), in ms. `random` is a number in [0, 1). */
export function shedDelay(attempt, random, retryAfterMs = null, options = {}) {
  const o = { ...SHED_DEFAULTS, ...options };
  const own = o.baseMs + attempt * o.stepMs;
  const asked = typeof retryAfterMs === "number" && retryAfterMs > own ? retryAfterMs : own;
  const floor = Math.min(asked, Math.max(0, o.capMs - o.jitterMs));
  const r = Math.min(Math.max(Number(random) || 0, 0), 1);
  return floor + r * o.jitterMs;
}

/** The polling period of the desk's live segment: 20–30 s, drawn afresh for each tick. */
export function pollDelay(random, baseMs = 20000, spreadMs = 10000) {
  return baseMs + Math.min(Math.max(Number(random) || 0, 0), 1) * spreadMs;
}

function abortError() {
  return new DOMException("The retries were stopped.", "AbortError");
}

/** setTimeout as a promise that rejects with an AbortError as soon as `signal` aborts. */
function abortableSleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) {
      reject(abortError());
      return;
    }
    const timer = setTimeout(resolve, ms);
    if (signal) {
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(abortError());
      }, { once: true });
    }
  });
}

async function errorKind(response) {
  // Only a 503 needs its body read; read a clone so the caller can still consume the original.
  try {
    const copy = typeof response.clone === "function" ? response.clone() : response;
    const body = await copy.json();
    return body && typeof body.error === "string" ? body.error : null;
  } catch {
    return null;
  }
}

/**
 * Run `doFetch(attempt)` (returns a fetch Response) under the shed policy.
 *
 * Resolves to { outcome, response, attempts, delays, error } where outcome is one of
 *   "ok" (2xx), "busy" (still shed after the retries), "unavailable" (503: the model is down),
 *   "rate_limited" (429), "network" (fetch threw), "failed" (any other status).
 * Never rejects, except when `signal` aborts (the AbortError is passed on).
 */
export async function fetchWithShedRetry(doFetch, options = {}) {
  const o = { ...SHED_DEFAULTS, ...options };
  const random = o.random || Math.random;
  const signal = o.signal || null;
  const sleep = o.sleep || ((ms) => abortableSleep(ms, signal));
  const onRetry = o.onRetry || (() => {});
  const delays = [];
  let attempts = 0;
  for (;;) {
    let response;
    try {
      attempts += 1;
      response = await doFetch(attempts - 1);
    } catch (error) {
      if (error && error.name === "AbortError") throw error;
      return { outcome: "network", response: null, attempts, delays, error };
    }
    const status = response.status;
    if (status >= 200 && status < 300) return { outcome: "ok", response, attempts, delays, error: null };
    if (status === 429) return { outcome: "rate_limited", response, attempts, delays, error: null };
    if (status !== 503) return { outcome: "failed", response, attempts, delays, error: null };
    if ((await errorKind(response)) === "llm_unavailable") {
      return { outcome: "unavailable", response, attempts, delays, error: null };
    }
    const retryIndex = attempts - 1;
    if (retryIndex >= o.maxRetries) return { outcome: "busy", response, attempts, delays, error: null };
    const headers = response.headers;
    const retryAfter = parseRetryAfter(headers && typeof headers.get === "function" ? headers.get("Retry-After") : null);
    const delay = shedDelay(retryIndex, random(), retryAfter, o);
    delays.push(delay);
    onRetry({ attempt: attempts, delay });
    await sleep(delay);
    if (signal && signal.aborted) throw abortError();
  }
}
