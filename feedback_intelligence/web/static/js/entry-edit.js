// The correction form of one saved entry: its text and every field of its structure, each control with a
// visible label (the accessibility tree names every one). "Tänään tallentamani" and the entry just saved
// both use it; the caller sends the PATCH. Only the fields the clerk changed are sent.
import { h } from "./dom.js";

let serial = 0; // ids that pair each label with its control, unique on the page

/** The structure fields a clerk corrects, in the desk's order: [name, CSS class, options of (labels)]. */
const FIELDS = [
  ["category", "mine-edit-category", (l) => l.categoryOrder.map((k) => [k, l.category(k)])],
  ["theme", "mine-edit-theme", null],
  ["severity", "mine-edit-severity", (l) => l.severityOrder.map((k) => [k, l.severity(k)])],
  ["type", "mine-edit-type", (l) => l.typeOrder.map((k) => [k, l.type(k)])],
  ["sentiment", "mine-edit-sentiment", (l) => l.sentimentOrder.map((k) => [k, l.sentiment(k)])],
];

function labelled(id, title, control) {
  control.id = id;
  return h("div", { class: "edit-field" }, h("label", { class: "label", for: id }, title), control);
}

function fieldTitle(name, t, labels) {
  return name === "category" ? labels.categoryFieldTitle : t(`field.${name}`);
}

/**
 * A hidden form for ``item`` ({id, text, structure}); ``onSubmit(changes)`` is called with the changed
 * fields only (none: it is not called) and returns a promise; ``say(key)`` tells the clerk.
 */
export function editForm(item, { t, labels, onSubmit, onCancel, say }) {
  const n = ++serial;
  const text = h("textarea", { rows: 3, class: "mine-edit-text" });
  text.value = item.text;
  const controls = { text };
  const rows = [labelled(`edit-${n}-text`, t("mine.textLabel"), text)];
  const s = item.structure;
  if (s) {
    for (const [name, cls, options] of FIELDS) {
      let control;
      if (options) {
        const choices = options(labels);
        if (s[name] && !choices.some(([k]) => k === s[name])) choices.push([s[name], s[name]]);
        control = h("select", { class: cls }, ...choices.map(([k, label]) => h("option", { value: k }, label)));
      } else {
        control = h("input", { type: "text", class: cls, maxlength: 200, autocomplete: "off" });
      }
      control.value = s[name] || (name === "sentiment" ? labels.typeSentiment[s.type] || "" : "");
      controls[name] = control;
      rows.push(labelled(`edit-${n}-${name}`, fieldTitle(name, t, labels), control));
    }
  }
  const save = h("button", { type: "submit", class: "btn btn-primary mine-save" }, t("mine.save"));
  const cancel = h("button", { type: "button", class: "btn mine-cancel" }, t("form.cancel"));
  const form = h("form", { class: "mine-form", hidden: true, "aria-label": t("mine.editLabel") },
    h("div", { class: "edit-fields" }, ...rows), h("div", { class: "actions" }, save, cancel));
  cancel.addEventListener("click", () => {
    form.hidden = true;
    if (onCancel) onCancel();
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const value = text.value.trim();
    if (!value) return say("mine.emptyText", "warn");
    const changes = {};
    if (value !== item.text) changes.text = value;
    for (const [name] of FIELDS) {
      const control = controls[name];
      if (!control) continue;
      const now = name === "theme" ? control.value.trim() : control.value;
      const was = s[name] || (name === "sentiment" ? labels.typeSentiment[s.type] || "" : "");
      if (name === "theme" && !now) return say("save.themeEmpty", "warn");
      if (now && now !== was) changes[name] = now;
    }
    if (!Object.keys(changes).length) {
      form.hidden = true;
      return say("mine.unchanged", "info");
    }
    save.disabled = true;
    try {
      return await onSubmit(changes);
    } finally {
      save.disabled = false;
    }
  });
  return form;
}
