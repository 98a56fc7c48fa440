// @ts-check
// Elements for the gateway's browser UIs (the admin console today, the vendor portal next), built
// with the DOM and never with innerHTML from data, so nothing an API answers can run as markup.
// Reads and sets nothing but the elements it makes.

/** @typedef {Node | string | number | null | undefined | false} Child */
/** @typedef {(event: Event) => unknown} Listener */
/** @typedef {Record<string, string | number | boolean | null | undefined | Listener>} Attrs */

/**
 * An element: `on<event>` attributes become listeners, `text` its text; a null, undefined or false
 * attribute or child is left out, so a view can write `cond ? h(...) : null`.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'text') el.textContent = String(value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/**
 * A button; `kind` is its style (`secondary`, `danger`), `name` its accessible name when the text
 * alone would not say which row it acts on.
 * @param {string} text
 * @param {Listener} onclick
 * @param {{ kind?: 'secondary' | 'danger', name?: string }} [options]
 */
export function button(text, onclick, { kind, name } = {}) {
  return h('button', { type: 'button', class: kind, 'aria-label': name, onclick }, text);
}
