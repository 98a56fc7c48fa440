// @ts-check
// The Usage screen: the vendor's requests per API id and status class over the last **24 hours**
// or **7 days** (from the admin console's traffic source: the bank's Prometheus when configured,
// else the counts the gateway keeps), and its rate limit with what is left now per key. Reads
// `GET /portal/api/usage?range=`; sets nothing.
import { button, h } from '../../ui-kit/dom.js';
import { alertBox } from '../../ui-kit/forms.js';
import { row, table } from '../../ui-kit/tables.js';
import { showProblems } from '../field-problems.js';
import { api } from '../portal-client.js';
import { alignNumbers, count, rateLimitText, time } from '../show.js';

/** @typedef {import('../types.js').Usage} Usage */

const RANGES = /** @type {const} */ ([
  ['24h', '24 hours'],
  ['7d', '7 days'],
]);
const CLASSES = ['2xx', '4xx', '5xx'];

/**
 * A number cell, right-aligned.
 * @param {number} n
 */
const num = (n) => h('td', { class: 'num' }, count(n));

/**
 * The counts per API id (most requests first) and a total row.
 * @param {Usage['rows']} rows
 */
function countsTable(rows) {
  /** @type {Map<string, Map<string, number>>} */
  const byApi = new Map();
  for (const r of rows) {
    const classes = byApi.get(r.apiId) ?? new Map();
    classes.set(r.statusClass, (classes.get(r.statusClass) ?? 0) + r.requests);
    byApi.set(r.apiId, classes);
  }
  /** @param {Map<string, number>} classes */
  const total = (classes) => [...classes.values()].reduce((a, b) => a + b, 0);
  const apis = [...byApi].sort(([a, x], [b, y]) => total(y) - total(x) || a.localeCompare(b));
  const headers = ['API id', ...CLASSES, 'Total'];
  if (apis.length === 0)
    return alignNumbers(table(headers, [row(h('td', { colspan: headers.length, class: 'muted' }, 'No requests in this range.'))]), [1, 2, 3, 4]);
  const sums = new Map();
  for (const [, classes] of apis) for (const [c, n] of classes) sums.set(c, (sums.get(c) ?? 0) + n);
  const grid = table(
    headers,
    apis.map(([apiId, classes]) => row(h('td', {}, h('code', {}, apiId)), ...CLASSES.map((c) => num(classes.get(c) ?? 0)), num(total(classes)))),
  );
  grid
    .querySelector('table')
    ?.append(h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, 'All APIs'), ...CLASSES.map((c) => num(sums.get(c) ?? 0)), num(total(sums)))));
  return alignNumbers(grid, [1, 2, 3, 4]);
}

/** @param {Usage['rateLimit']} limit */
function rateLimitPart(limit) {
  return [
    h('h2', {}, 'Rate limit'),
    h('p', {}, rateLimitText(limit), '; each key has its own budget.'),
    alignNumbers(
      table(
        ['Key', 'Left now', 'Resets in'],
        limit.keys.length === 0
          ? [row(h('td', { colspan: 3, class: 'muted' }, 'No active keys.'))]
          : limit.keys.map((k) =>
              row(
                h('td', {}, h('code', {}, k.prefix)),
                num(k.remaining),
                h('td', { class: 'num' }, k.resetsInSeconds > 0 ? `${count(k.resetsInSeconds)} s` : '—'),
              ),
            ),
      ),
      [1, 2],
    ),
  ];
}

/** @param {import('../portal-client.js').ViewContext} view */
export async function usageView({ main, arg }) {
  const errors = alertBox();
  const content = h('div', { 'aria-live': 'polite' });
  let range = RANGES.some(([id]) => id === arg) ? /** @type {'24h' | '7d'} */ (arg) : '24h';
  const choices = RANGES.map(([id, label]) => {
    const b = button(
      label,
      () => {
        range = id;
        void load();
      },
      { kind: 'secondary' },
    );
    b.dataset.range = id;
    return b;
  });
  // Only the newest answer is shown: a slower answer to the other range is dropped.
  let asked = 0;

  async function load() {
    for (const b of choices) b.setAttribute('aria-pressed', String(b.dataset.range === range));
    errors.textContent = '';
    const mine = ++asked;
    try {
      const usage = /** @type {Usage} */ ((await api('GET', `/usage?range=${range}`)).data);
      if (mine !== asked) return;
      content.replaceChildren(
        h(
          'p',
          { class: 'muted' },
          'From ',
          time(usage.from),
          ' to ',
          time(usage.to),
          // The note says where the counts come from and how fresh they are; without one, the source does.
          `. ${usage.note || `Counted by ${usage.source === 'prometheus' ? "the bank's Prometheus" : 'the gateway'}.`}`,
        ),
        countsTable(usage.rows),
        ...(usage.rateLimit ? rateLimitPart(usage.rateLimit) : []),
      );
    } catch (err) {
      if (mine === asked) showProblems(err, errors, []);
    }
  }

  main.replaceChildren(
    h(
      'div',
      { class: 'heading' },
      h('h1', {}, 'Usage'),
      button('Refresh', () => load(), { kind: 'secondary' }),
    ),
    h('div', { class: 'row', role: 'group', 'aria-label': 'Range' }, choices),
    errors,
    content,
  );
  await load();
}
