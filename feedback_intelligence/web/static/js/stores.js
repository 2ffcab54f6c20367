// The chain's stores by name (FI_STORES, from GET /report/stores: the stores the caller may read), asked
// once per page: the brief, the case list, the alert cards and the store filter all name a store by it.

import { getJson } from "./api.js";

let asked = null;

/** {id: name} of the stores in the caller's reach; {} where the route refuses or is absent. */
export function storeNames() {
  asked ??= getJson("/report/stores")
    .then((view) => Object.fromEntries((view.stores || []).map((row) => [row.store, row.name])))
    .catch(() => ({}));
  return asked;
}

/** A store's name, else its id (a store outside FI_STORES), else "" (an item without a store). */
export function storeName(names, id) {
  return id ? names[id] || id : "";
}

/** The store a page reports on (`/?store=…`); null: everything the reader may see. */
export function pageStore(search = globalThis.location ? globalThis.location.search : "") {
  return new URLSearchParams(search).get("store");
}
