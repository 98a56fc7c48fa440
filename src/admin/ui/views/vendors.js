// @ts-check
// The Vendors screen: a searchable list (id, name, status, the rate limit in force, keys,
// licences), each linking to its vendor's screen, and New vendor (`GET`/`POST /v1/vendors`). Its
// status says what succeeded, here or on the screen before (a vendor deleted).
import { h } from '../../../ui-kit/dom.js';
import { actions, alertBox, attempt, field, inlineForm, revealing, statusBox, submit, tellCarried } from '../../../ui-kit/forms.js';
import { row, table } from '../../../ui-kit/tables.js';
import { api, seg, write } from '../admin-client.js';
import { rateLimitInForce } from './vendor-status.js';

/** @typedef {import('../types.js').Vendor} Vendor */

/**
 * @param {Vendor} v
 * @param {string} query lower case
 */
const matches = (v, query) => !query || v.id.toLowerCase().includes(query) || v.name.toLowerCase().includes(query);

/** @param {Vendor} v */
const vendorRow = (v) => row(h('a', { href: `#/vendors/${seg(v.id)}` }, v.id), v.name, v.status, rateLimitInForce(v), v.keys.length, v.licences.length);

/** @param {import('../admin-client.js').ViewContext} view */
export async function vendorsView({ main }) {
  const errors = alertBox();
  const notice = statusBox();
  tellCarried(notice);
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
  const act = actions({ errors, notice, refresh: load });
  const id = field('Vendor id', { required: true });
  const name = field('Name', { required: true });
  const createForm = inlineForm(
    act(async () => {
      const vendorId = id.value();
      await write('POST', '/vendors', { id: vendorId, name: name.value() }, notice);
      createForm.hidden = true;
      id.clear();
      name.clear();
      return `Created vendor ${vendorId}.`;
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
