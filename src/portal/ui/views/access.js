// @ts-check
// The API access screen: the vendor's licences with the API ids each grants, its rate limit, and
// the documentation: `/docs` and the OpenAPI document filtered to what this vendor may call.
// Reads `GET /portal/api/access`; sets nothing.
import { button, h } from '../../ui-kit/dom.js';
import { alertBox } from '../../ui-kit/forms.js';
import { row, table } from '../../ui-kit/tables.js';
import { showProblems } from '../field-problems.js';
import { api } from '../portal-client.js';
import { rateLimitText, time } from '../show.js';

/** @typedef {import('../types.js').Access} Access */

/** Up to this many API ids show in the row itself; more fold into a list opened on demand. */
const INLINE_IDS = 4;

/** @param {string[]} ids */
function apiIds(ids) {
  const codes = ids.map((id) => h('li', {}, h('code', {}, id)));
  if (ids.length === 0) return h('span', { class: 'muted' }, 'none (no operation matches)');
  if (ids.length <= INLINE_IDS) return h('ul', { class: 'ids' }, codes);
  return h('details', {}, h('summary', {}, `${ids.length} API ids`), h('ul', { class: 'ids' }, codes));
}

/** @param {import('../portal-client.js').ViewContext} view */
export async function accessView({ main }) {
  const errors = alertBox();
  const content = h('div');
  const load = async () => {
    errors.textContent = '';
    try {
      const access = /** @type {Access} */ ((await api('GET', '/access')).data);
      content.replaceChildren(
        h(
          'dl',
          { class: 'facts' },
          h('dt', {}, 'Vendor'),
          h('dd', {}, `${access.vendor.name} (`, h('code', {}, access.vendor.id), ')'),
          h('dt', {}, 'Status'),
          h('dd', {}, access.vendor.status),
          h('dt', {}, 'Rate limit'),
          h('dd', {}, rateLimitText(access.rateLimit), ', per key'),
        ),
        h('h2', {}, 'Licences'),
        table(
          ['Licence', 'Pattern', 'Expires', 'API ids'],
          access.licences.length === 0
            ? [row(h('td', { colspan: 4, class: 'muted' }, 'No licences: ask the bank for access.'))]
            : access.licences.map((l) =>
                row(h('td', {}, h('code', {}, l.id)), h('td', {}, h('code', {}, l.api)), time(l.expiresAt, 'never'), h('td', {}, apiIds(l.apiIds))),
              ),
        ),
        h('h2', {}, 'Documentation'),
        h(
          'ul',
          {},
          h('li', {}, h('a', { href: access.docs }, 'API documentation'), ' (every operation of the API, with examples)'),
          h('li', {}, h('a', { href: access.openapi }, 'OpenAPI document'), ' (JSON, only the operations your licences grant: generate a client from it)'),
        ),
      );
    } catch (err) {
      showProblems(err, errors, []);
    }
  };
  main.replaceChildren(h('div', { class: 'heading' }, h('h1', {}, 'API access'), button('Refresh', load, { kind: 'secondary' })), errors, content);
  await load();
}
