// @ts-check
// Tables of the gateway's browser UIs: column headers scoped for screen readers, rows built by the
// view. Reads and sets nothing but the elements it makes.
import { h } from './dom.js';

/** @typedef {import('./dom.js').Child} Child */

/**
 * @param {string[]} headers
 * @param {HTMLTableRowElement[] | HTMLTableSectionElement} rows rows, or a body the view refills
 */
export function table(headers, rows) {
  const body = rows instanceof HTMLTableSectionElement ? rows : h('tbody', {}, rows);
  return h(
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
