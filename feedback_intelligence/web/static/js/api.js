// Talking to the API. Same origin by default; a deployment that serves the pages elsewhere can name
// the API root in <meta name="fi-api-base" content="/api"> (no inline script needed).

export function apiBase(doc = document) {
  const meta = doc.querySelector('meta[name="fi-api-base"]');
  const value = meta ? meta.getAttribute("content") || "" : "";
  return value.replace(/\/+$/, "");
}

export function apiUrl(path, params) {
  let url = apiBase() + path;
  if (params) {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      if (value !== null && value !== undefined && value !== "") query.set(key, String(value));
    }
    const text = query.toString();
    if (text) url += (url.includes("?") ? "&" : "?") + text;
  }
  return url;
}

/** The CSRF token of a signed-in session (the fi_csrf cookie), sent back on every change (ADR 0030). */
export function csrfToken(doc = globalThis.document) {
  const cookies = doc && typeof doc.cookie === "string" ? doc.cookie.split(";") : [];
  for (const part of cookies) {
    const [name, ...rest] = part.trim().split("=");
    if (name === "fi_csrf") return rest.join("=");
  }
  return "";
}

/** fetch with JSON in and out; credentials stay same-origin (the edge's visitor cookie rides along). */
export function request(path, { method = "GET", body, params, signal, headers = {} } = {}) {
  const init = { method, signal, credentials: "same-origin", headers: { Accept: "application/json", ...headers } };
  if (method !== "GET" && method !== "HEAD") {
    const token = csrfToken();
    if (token) init.headers["X-CSRF-Token"] = token;
  }
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  return fetch(apiUrl(path, params), init).then((response) => {
    reachability(true);
    return response;
  }, (error) => {
    if (!(error && error.name === "AbortError")) reachability(false); // no answer at all: unreachable
    throw error;
  });
}

/** Every request says whether the server answered (a `fi:reachability` event with `detail.reachable`), so a
 * page's connection line follows what really happens, not its first /schema. */
function reachability(reachable) {
  const target = globalThis.window;
  if (target && typeof target.dispatchEvent === "function" && typeof CustomEvent === "function") {
    target.dispatchEvent(new CustomEvent("fi:reachability", { detail: { reachable } }));
  }
}

/** GET → parsed JSON; throws an Error with .status on a non-2xx answer (and the fetch error on no answer). */
export async function getJson(path, options = {}) {
  const response = await request(path, options);
  if (!response.ok) {
    const error = new Error(`GET ${path} → ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return response.json();
}

