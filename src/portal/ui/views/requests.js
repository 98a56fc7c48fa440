// @ts-check
// The Requests screen: the vendor's recent requests from the request log (metadata only), newest
// first, filtered by Status (Any, 2xx, 4xx, 5xx) and API id, **More** reading the next page; a
// **Request id** (the `X-Request-Id` a call was answered with) and **Find** look one request up.
// `#/requests/<requestId>` opens the screen on that request. Reads `GET /portal/api/requests`;
// sets nothing.
import { button, h } from '../../ui-kit/dom.js';
import { alertBox, field, submit, tell } from '../../ui-kit/forms.js';
import { row, table } from '../../ui-kit/tables.js';
import { showProblems } from '../field-problems.js';
import { api } from '../portal-client.js';
import { alignNumbers, millis, time } from '../show.js';

/** @typedef {import('../types.js').LoggedRequest} LoggedRequest */

/** Requests per page. */
const PAGE = 50;
const HEADERS = ['Time', 'Request id', 'API id', 'Status', 'Duration', 'Core status', 'Key', 'Code'];

/** @param {LoggedRequest} r */
const requestRow = (r) =>
  row(
    time(r.at),
    h('td', {}, h('code', {}, r.requestId)),
    h('td', {}, h('code', {}, r.apiId)),
    h('td', { class: `num status-${String(r.status)[0]}xx` }, String(r.status)),
    h('td', { class: 'num' }, millis(r.durationMs)),
    r.upstreamStatus === undefined ? '—' : `${r.upstreamStatus}${r.upstreamMs === undefined ? '' : ` in ${millis(r.upstreamMs)}`}`,
    h('td', {}, h('code', {}, r.keyPrefix)),
    r.code ? h('td', {}, h('code', {}, r.code)) : '—',
  );

/** @param {import('../portal-client.js').ViewContext} view */
export async function requestsView({ main, arg }) {
  const errors = alertBox();
  const status = h('p', { role: 'status', class: 'muted' });
  const requestId = field('Request id', { placeholder: 'X-Request-Id value', value: arg });
  const statusClass = field('Status', { tag: 'select', options: ['Any', '2xx', '4xx', '5xx'] });
  const apiId = field('API id', { placeholder: 'GETaccounts/{accountId}' });
  const body = h('tbody');
  /** The next page's `after`; null after the last page. */
  let next = /** @type {string | null} */ (null);
  let shown = 0;
  // Only the newest request's answer is shown: a slower answer to an older search is dropped.
  let asked = 0;
  const more = button('More', () => (next === null ? undefined : load(false)), { kind: 'secondary' });
  more.hidden = true;

  /** The query of the search on the page (the request id alone when one is given). */
  function query() {
    const q = new URLSearchParams();
    if (requestId.value()) {
      q.set('requestId', requestId.value());
      return q;
    }
    if (statusClass.value() !== 'Any') q.set('status', statusClass.value());
    if (apiId.value()) q.set('apiId', apiId.value());
    q.set('limit', String(PAGE));
    return q;
  }

  /** @param {boolean} fresh a new search (else the next page of this one) */
  async function load(fresh) {
    const q = query();
    if (!fresh && next !== null) q.set('after', next);
    const mine = ++asked;
    try {
      const page = /** @type {{ items: LoggedRequest[], next: string | null }} */ ((await api('GET', `/requests?${q}`)).data);
      if (mine !== asked) return;
      errors.textContent = '';
      const rows = page.items.map(requestRow);
      if (fresh) body.replaceChildren(...rows);
      else body.append(...rows);
      shown = (fresh ? 0 : shown) + rows.length;
      next = page.next;
      more.hidden = next === null;
      const id = q.get('requestId');
      if (id !== null) tell(status, shown === 0 ? `No request ${id} in your log (it keeps the last days only).` : `Request ${id}:`, 'muted');
      else tell(status, `${shown} ${shown === 1 ? 'request' : 'requests'} shown, newest first${next === null ? '.' : '; More reads older ones.'}`, 'muted');
    } catch (err) {
      if (mine === asked) showProblems(err, errors, []);
    }
  }

  const form = h(
    'form',
    {
      class: 'row',
      role: 'search',
      'aria-label': 'Find requests',
      onsubmit: (event) => {
        event.preventDefault();
        void load(true);
      },
    },
    requestId.wrap,
    submit('Find'),
    statusClass.wrap,
    apiId.wrap,
  );
  // A filter chosen from the list applies at once; typed ones with Find (or Enter).
  statusClass.input.addEventListener('change', () => void load(true));
  main.replaceChildren(
    h(
      'div',
      { class: 'heading' },
      h('h1', {}, 'Requests'),
      button('Refresh', () => load(true), { kind: 'secondary' }),
    ),
    h('p', { class: 'muted' }, 'Your recent requests: metadata only, never a body. Give a request id from a response’s X-Request-Id header to find one call.'),
    form,
    errors,
    status,
    alignNumbers(table(HEADERS, body), [3, 4]),
    more,
  );
  await load(true);
}
