// The entry this desk just saved, with "muokkaa" and "poista" (ADR 0035): a clerk corrects or erases
// their own entry within the correction window. PATCH/DELETE /live/feedback/{id}, If-Match on the revision.
import { request } from "./api.js";
import { h, replace } from "./dom.js";
import { editForm } from "./entry-edit.js";

const TEXTS = {
  heading: "Juuri tallennettu merkintä",
  edit: "Muokkaa",
  erase: "Poista",
  confirmErase: "Vahvista poisto",
  cancel: "Peruuta",
  saveEdit: "Tallenna muutos",
  edited: "Muutos tallennettu.",
  erased: "Merkintä poistettu. Sen teksti ei jää talteen.",
  forbidden: "Tätä merkintää ei voi enää muuttaa täältä (muokkausaika on päättynyt). Pyydä esihenkilöä.",
  someoneElses: "Tämän merkinnän on tallentanut joku muu: et voi muuttaa sitä.",
  noRole: "Roolisi ei salli tämän merkinnän muuttamista.",
  gone: "Merkintä on jo poistettu.",
  stale: "Merkintää on muutettu toisaalla. Päivitä sivu ja yritä uudelleen.",
  empty: "Teksti ei voi olla tyhjä.",
  failed: "Muutos ei onnistunut. Yritä uudelleen.",
  notYours: "Vain ylläpito voi muuttaa raportin merkintöjä.",
};

/** Show the entry in ``box`` (a container element), replacing what it showed before. ``base`` is the
 * channel's path: ``/live/feedback`` (the desk) or ``/feedback`` (the corpus the report reads). With
 * ``structure`` and ``ctx`` ({t, labels}) "Muokkaa" corrects every field, not the text alone. */
export function showSavedEntry(box, id, text, { base = "/live/feedback", heading = TEXTS.heading, structure = null,
  ctx = null } = {}) {
  let revision = 1;
  const message = h("p", { class: "message", role: "status" });
  const shown = h("p", { class: "saved-text" }, text);
  const area = h("textarea", { rows: 3, class: "saved-edit", hidden: true });
  area.id = "saved-entry-text";
  area.value = text;
  const say = (value, kind = "ok") => {
    message.textContent = value;
    message.dataset.kind = kind;
  };
  const button = (label, id, onClick) => {
    const b = h("button", { type: "button", class: "btn" }, label);
    b.id = id;
    b.addEventListener("click", onClick);
    return b;
  };
  const answer = async (response, done) => {
    if (response.ok) return done(response);
    if (response.status === 403) {
      // the service says why (services/change_rule.py); the window's end is the usual reason
      const { error } = await response.json().catch(() => ({}));
      say(error === "correction_not_yours" ? TEXTS.someoneElses
        : error === "correction_forbidden" || error === "store_forbidden" ? TEXTS.noRole : TEXTS.forbidden, "warn");
    } else if (response.status === 404 && base === "/feedback") say(TEXTS.notYours, "warn");
    else if (response.status === 410) say(TEXTS.gone, "warn");
    else if (response.status === 412) say(TEXTS.stale, "warn");
    else say(TEXTS.failed, "error");
    return undefined;
  };
  const edit = button(TEXTS.edit, "saved-entry-edit", () => {
    area.hidden = false;
    save.hidden = false;
    area.focus();
  });
  const save = button(TEXTS.saveEdit, "saved-entry-save", async () => {
    const value = area.value.trim();
    if (!value) return say(TEXTS.empty, "warn");
    const response = await request(`${base}/${encodeURIComponent(id)}`, {
      method: "PATCH", body: { text: value }, headers: { "If-Match": `"${revision}"` },
    }).catch(() => null);
    if (!response) return say(TEXTS.failed, "error");
    return answer(response, () => {
      revision = Number((response.headers.get("ETag") || "").replace(/\D/g, "")) || revision + 1;
      shown.textContent = value;
      area.hidden = true;
      save.hidden = true;
      say(TEXTS.edited);
    });
  });
  save.hidden = true;
  let armed = false;
  const erase = button(TEXTS.erase, "saved-entry-erase", async () => {
    if (!armed) {
      armed = true;
      erase.textContent = TEXTS.confirmErase;
      return undefined;
    }
    const response = await request(`${base}/${encodeURIComponent(id)}`, {
      method: "DELETE", headers: { "If-Match": `"${revision}"` },
    }).catch(() => null);
    if (!response) return say(TEXTS.failed, "error");
    return answer(response, () => {
      replace(box, h("p", { class: "message", role: "status" }, TEXTS.erased));
    });
  });
  if (structure && ctx) {
    // every field: the same form as "Tänään tallentamani", with the same labels
    let current = { id, text, structure };
    const fields = h("p", { class: "saved-fields" });
    const describe = () => {
      const st = current.structure;
      fields.textContent = [ctx.labels.category(st.category), st.theme, ctx.labels.severity(st.severity),
        ctx.labels.type(st.type), st.sentiment ? ctx.labels.sentiment(st.sentiment) : null].filter(Boolean).join(" · ");
    };
    describe();
    let form = null;
    const open = () => {
      if (form) form.remove();
      form = editForm(current, {
        t: ctx.t,
        labels: ctx.labels,
        say: (key, kind = "warn") => say(ctx.t(key), kind),
        onCancel: () => { full.hidden = false; },
        onSubmit: async (changes) => {
          const response = await request(`${base}/${encodeURIComponent(id)}`, {
            method: "PATCH", body: changes, headers: { "If-Match": `"${revision}"` },
          }).catch(() => null);
          if (!response) return say(TEXTS.failed, "error");
          return answer(response, async () => {
            const body = await response.json().catch(() => null);
            revision = Number((response.headers.get("ETag") || "").replace(/\D/g, "")) || revision + 1;
            if (body && body.structure) current = { id, text: body.text, structure: body.structure };
            shown.textContent = current.text;
            describe();
            form.hidden = true;
            full.hidden = false;
            say(ctx.t("mine.correctedNow"), "ok");
            if (ctx.onChange) ctx.onChange(); // "Tänään tallentamani" shows the corrected entry too
          });
        },
      });
      form.id = "saved-entry-form";
      message.before(form);
      form.hidden = false;
      full.hidden = true;
      form.querySelector("select, textarea").focus();
    };
    const full = button(TEXTS.edit, "saved-entry-edit", open);
    replace(box, h("h3", {}, heading), shown, fields, h("div", { class: "actions" }, full, erase), message);
    box.hidden = false;
    return;
  }
  replace(box, h("h3", {}, heading), shown, area, h("div", { class: "actions" }, edit, save, erase), message);
  box.hidden = false;
}
