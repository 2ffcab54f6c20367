// The management view's filters, in the URL so a view can be shared: pure, so node can test it.
// Names are the report's contract (ADR 0034): category, issue (ADR 0055), severity, type, sentiment, source,
// alert, channel, store, q. The page passes them to GET /report, the drill-in and the CSV as they are; the server narrows
// by them and refuses (422) a value it does not know.

export const FILTER_FIELDS = ["category", "issue", "severity", "type", "sentiment", "source", "alert", "channel", "store", "q"];
const MAX_CHARS = 200; // a longer search is cut, never sent whole from a pasted page

/** The filters a URL's query names (unknown names ignored, values trimmed, empty ones dropped). */
export function filtersFromSearch(search) {
  const params = new URLSearchParams(search || "");
  const filters = {};
  for (const field of FILTER_FIELDS) {
    const value = (params.get(field) || "").trim().slice(0, MAX_CHARS);
    if (value) filters[field] = value;
  }
  return filters;
}

/** The query parameters for the report: only the filters that are set, in the contract's order. */
export function filterParams(filters) {
  const params = {};
  for (const field of FILTER_FIELDS) {
    const value = String((filters || {})[field] ?? "").trim().slice(0, MAX_CHARS);
    if (value) params[field] = value;
  }
  return params;
}

/** ``search`` with the filters replaced by ``filters`` (other parameters kept as they are). */
export function searchWithFilters(search, filters) {
  const params = new URLSearchParams(search || "");
  for (const field of FILTER_FIELDS) params.delete(field);
  for (const [field, value] of Object.entries(filterParams(filters))) params.set(field, value);
  const text = params.toString();
  return text ? `?${text}` : "";
}
