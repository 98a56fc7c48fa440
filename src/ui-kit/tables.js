// @ts-check
// Tables of the gateway's browser UIs: column headers scoped for screen readers, rows built by the
// view, each table in a container of its own that scrolls sideways when the table is wider than
// the screen (a phone, a narrow window), so the page itself never does. The container takes the
// keyboard's focus, so the part out of sight can be scrolled to without a mouse. Reads and sets
// nothing but the elements it makes.
import { h } from './dom.js';

/** @typedef {import('./dom.js').Child} Child */

/**
 * @param {string[]} headers
 * @param {HTMLTableRowElement[] | HTMLTableSectionElement} rows rows, or a body the view refills
 */
export function table(headers, rows) {
  const body = rows instanceof HTMLTableSectionElement ? rows : h('tbody', {}, rows);
  const grid = h(
    'table',
    {},
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headers.map((t) => h('th', { scope: 'col' }, t)),
      ),
    ),
    body,
  );
  return h('div', { class: 'table-scroll', tabindex: 0 }, grid);
}

/**
 * A row of cells.
 * @param {...(Child | Child[])} cells
 */
export function row(...cells) {
  return h(
    'tr',
    {},
    cells.map((cell) => (cell instanceof HTMLTableCellElement ? cell : h('td', {}, cell))),
  );
}
