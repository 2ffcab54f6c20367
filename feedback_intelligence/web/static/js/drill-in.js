// The drill-in: the items behind a count or a group, from GET /report/items with the view's filters plus
// the clicked narrowing, newest first, a page at a time ("Näytä lisää" follows the server's opaque
// cursor). A new drill-in aborts the one before, so a slow page never lands in another list.

import { request } from "./api.js";
import { h, show } from "./dom.js";
import { refusalText } from "./problems.js";
import { sourceItem } from "./report-view.js";

const PAGE = 50; // the server's default; its maximum is 200

export class DrillIn {
  /** els: {dialog, title, scope, status, list, more, close}; ctx(): {t, labels} of the page now. */
  constructor(els, ctx) {
    this.els = els;
    this.ctx = ctx;
    this.controller = null;
    this.query = null;
    this.cursor = null;
    this.shown = 0;
    this.opener = null;
    els.more.addEventListener("click", () => this.next());
    els.close.addEventListener("click", () => els.dialog.close());
    els.dialog.addEventListener("click", (event) => {
      if (event.target === els.dialog) els.dialog.close(); // a click on the backdrop
    });
    els.dialog.addEventListener("close", () => {
      if (this.controller) this.controller.abort();
      if (this.opener && this.opener.isConnected) this.opener.focus();
      this.opener = null;
    });
  }

  /** Open the list of ``params`` (window and filters, the narrowing already applied) under ``title``;
   *  ``scope`` says in words which filters of the view apply (empty: none). */
  open(title, params, opener, scope = "") {
    const { dialog, list } = this.els;
    this.opener = opener || null;
    this.els.scope.textContent = scope;
    show(this.els.scope, Boolean(scope));
    this.query = { ...params, limit: String(PAGE) };
    this.cursor = null;
    this.shown = 0;
    this.els.title.textContent = title;
    list.replaceChildren();
    dialog.dataset.total = "";
    if (!dialog.open) dialog.showModal();
    this.els.close.focus();
    this.next();
  }

  async next() {
    const { list, more, status, dialog } = this.els;
    const { t } = this.ctx();
    if (this.controller) this.controller.abort();
    const controller = new AbortController();
    this.controller = controller;
    more.disabled = true;
    dialog.setAttribute("aria-busy", "true");
    status.textContent = t("drill.loading");
    const params = this.cursor ? { ...this.query, cursor: this.cursor } : this.query;
    try {
      const response = await request("/report/items", { params, signal: controller.signal });
      if (!response.ok) {
        status.textContent = t("drill.refused", { detail: await refusalText(response, t) });
        show(more, false);
        return;
      }
      const page = await response.json();
      if (controller.signal.aborted) return;
      const ctx = { ...this.ctx(), withChannel: true, adviceDetail: true }; // a disagreement said in full
      list.append(...page.items.map((item) => sourceItem({ ...item, feedbackId: item.id }, ctx)));
      this.shown += page.items.length;
      this.cursor = page.nextCursor;
      dialog.dataset.total = String(page.total);
      dialog.dataset.shown = String(this.shown);
      status.textContent = this.shown ? t("drill.count", { shown: this.shown, n: page.total }) : t("drill.none");
      show(more, Boolean(this.cursor));
    } catch (error) {
      if (controller.signal.aborted || (error && error.name === "AbortError")) return;
      status.textContent = t("drill.failed");
      show(more, Boolean(this.cursor));
    } finally {
      if (this.controller === controller) {
        this.controller = null;
        more.disabled = false;
        dialog.removeAttribute("aria-busy");
      }
    }
  }
}

/** A count as a button that opens its drill-in (``onOpen(button)``). */
export function countButton(text, onOpen, dataset = {}) {
  const button = h("button", { type: "button", class: "btn btn-link count-link", dataset }, text);
  button.addEventListener("click", () => onOpen(button));
  return button;
}
