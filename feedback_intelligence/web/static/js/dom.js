// Tiny DOM builders. Every string becomes a text node: nothing user-supplied is ever parsed as HTML.

const SVG_NS = "http://www.w3.org/2000/svg";

function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

function setProps(el, props) {
  for (const [name, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) throw new Error(`no inline handlers: ${name}`);
    if (name === "class") el.setAttribute("class", Array.isArray(value) ? value.filter(Boolean).join(" ") : value);
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name === "text") el.textContent = String(value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
}

/** h("p", {class: "x"}, "text", child, ...) → an HTML element. */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  setProps(el, props);
  append(el, children);
  return el;
}

/** s("rect", {x: 0, ...}) → an SVG element. */
export function s(tag, props, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setProps(el, props);
  append(el, children);
  return el;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

export function replace(el, ...children) {
  clear(el);
  append(el, children);
  return el;
}

export function byId(id) {
  return document.getElementById(id);
}

export function show(el, visible = true) {
  el.hidden = !visible;
  return el;
}
