// @ts-check
// The Vendors screen: a searchable list (id, name, status, rate limit, keys, licences), each
// linking to its vendor's screen, and New vendor (`GET`/`POST /v1/vendors`).
import { h } from '../../../ui-kit/dom.js';
import { actions, alertBox, attempt, field, inlineForm, revealing, submit } from '../../../ui-kit/forms.js';
import { row, table } from '../../../ui-kit/tables.js';
import { api, seg, write } from '../admin-client.js';

/** @typedef {import('../types.js').Vendor} Vendor */

/**
 * @param {Vendor} v
 * @param {string} query lower case
 */
const matches = (v, query) => !query || v.id.toLowerCase().includes(query) || v.name.toLowerCase().includes(query);

/** @param {Vendor} v */
const vendorRow = (v) =>
  row(
    h('a', { href: `#/vendors/${seg(v.id)}` }, v.id),
    v.name,
    v.status,
    v.rateLimit ? `${v.rateLimit.points} / ${v.rateLimit.durationSeconds} s` : '—',
    v.keys.length,
    v.licences.length,
  );

/** @param {import('../admin-client.js').ViewContext} view */
export async function vendorsView({ main }) {
  const errors = alertBox();
  const notice = h('div');
  const search = field('Search vendors', { type: 'search' });
  const body = h('tbody');
  /** @type {Vendor[]} */
  let vendors = [];
  const render = () => {
    const query = search.value().toLowerCase();
    body.replaceChildren(...vendors.filter((v) => matches(v, query)).map(vendorRow));
  };
  const load = async () => {
    vendors = (await api('GET', '/vendors')).data;
    render();
  };
  const act = actions({ errors, refresh: load });
  const id = field('Vendor id', { required: true });
  const name = field('Name', { required: true });
  const createForm = inlineForm(
    act(async () => {
      await write('POST', '/vendors', { id: id.value(), name: name.value() }, notice);
      createForm.hidden = true;
      id.clear();
      name.clear();
    }),
    id.wrap,
    name.wrap,
    submit('Create'),
  );
  search.input.addEventListener('input', render);
  main.replaceChildren(
    h('h1', {}, 'Vendors'),
    h('div', { class: 'row' }, search.wrap, revealing('New vendor', createForm, id.input)),
    createForm,
    errors,
    notice,
    table(['Vendor id', 'Name', 'Status', 'Rate limit', 'Keys', 'Licences'], body),
  );
  await attempt(errors, load);
}
