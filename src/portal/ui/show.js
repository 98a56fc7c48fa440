// @ts-check
// How the portal writes times, durations, rate limits and number columns: a time in the browser's
// locale, its UTC instant on hover and in `datetime` (so a script or a test reads the exact
// instant). Reads and sets nothing but the elements it makes.
import { h } from '../ui-kit/dom.js';

/**
 * A time element, or what none means where it is shown ("never" for an expiry that does not come).
 * @param {string | null | undefined} iso
 * @param {string} [none]
 */
export function time(iso, none = '—') {
  if (!iso) return none;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const utc = `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  return h('time', { datetime: at.toISOString(), title: utc }, at.toLocaleString());
}

/**
 * A duration in milliseconds, grouped in the browser's locale.
 * @param {number | null | undefined} ms
 */
export const millis = (ms) => (typeof ms === 'number' ? `${Math.round(ms).toLocaleString()} ms` : '—');

/**
 * A count in the browser's locale.
 * @param {number} n
 */
export const count = (n) => n.toLocaleString();

/**
 * A rate limit as a sentence: "6,000 requests per 60 s (your own limit)".
 * @param {import('./types.js').RateLimit} limit
 */
export const rateLimitText = ({ points, durationSeconds, source }) =>
  `${count(points)} requests per ${count(durationSeconds)} s (${source === 'vendor' ? 'your own limit' : "the gateway's default"})`;

/**
 * A table whose number columns' headers align like their numbers (right), as `td.num` cells do.
 * @param {HTMLElement} grid a table from the kit's `table()`
 * @param {number[]} columns the number columns, from 0
 */
export function alignNumbers(grid, columns) {
  grid.querySelectorAll('thead th').forEach((th, i) => {
    if (columns.includes(i)) th.classList.add('num');
  });
  return grid;
}
