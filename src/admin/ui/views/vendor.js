// @ts-check
// A vendor's screen (`#/vendors/<id>`): its status, rate limit and deletion (vendor-status.js),
// licences with the API ids each pattern grants (from the catalogue, `GET /v1/apis`), Grant
// licence and Revoke (asking first), the keys (vendor-keys.js) and the vendor portal's users
// (vendor-portal-users.js). Every action redraws the screen from the API and says what it did in
// the screen's status.
import { askFirst } from '../../../ui-kit/confirm.js';
import { button, h } from '../../../ui-kit/dom.js';
import { actions, alertBox, attempt, field, inlineForm, revealing, statusBox, submit } from '../../../ui-kit/forms.js';
import { when } from '../../../ui-kit/format.js';
import { row, table } from '../../../ui-kit/tables.js';
import { api, seg, write } from '../admin-client.js';
import { keysPart } from './vendor-keys.js';
import { portalUsersPart } from './vendor-portal-users.js';
import { statusAndLimit } from './vendor-status.js';
import { trafficChart } from './traffic-chart.js';

/** @typedef {import('../types.js').Vendor} Vendor */
/** @typedef {import('./vendor-keys.js').VendorScreen} VendorScreen */

/**
 * The API ids a licence pattern matches: `*` is any run of characters.
 * @param {string} pattern
 * @param {Array<{ apiId: string }>} apis
 */
function matching(pattern, apis) {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  const regex = new RegExp(`^${source}$`);
  return apis.filter((a) => regex.test(a.apiId)).map((a) => a.apiId);
}

/**
 * @param {Vendor} vendor
 * @param {Array<{ apiId: string }>} apis
 * @param {VendorScreen} part
 */
function licencesPart(vendor, apis, { path, notice, act }) {
  const pattern = field('API pattern', { required: true, placeholder: 'GET*' });
  const expires = field('Expires at', { placeholder: '2027-01-01T00:00:00Z' });
  const grant = act(async () => {
    const granting = pattern.value();
    await write('POST', `${path}/licences`, { api: granting, ...(expires.value() ? { expiresAt: expires.value() } : {}) }, notice);
    return `Granted licence ${granting} to ${vendor.id}.`;
  });
  const grantForm = inlineForm(grant, pattern.wrap, expires.wrap, submit('Grant'));
  const licenceRow = (/** @type {import('../types.js').Licence} */ l) => {
    const granted = matching(l.api, apis);
    const revoke = act(async () => {
      await write('DELETE', `${path}/licences/${seg(l.id)}`, undefined, notice);
      return `Revoked licence ${l.api} of ${vendor.id}.`;
    });
    const ask = () =>
      askFirst({
        title: `Revoke licence ${l.api} of ${vendor.id}?`,
        lost: [
          `${vendor.id} loses ${granted.length} API ids at once${granted.length ? ` (unless another licence grants them): ${granted.slice(0, 12).join(', ')}${granted.length > 12 ? ', …' : ''}` : ''}.`,
        ],
        onConfirm: revoke,
      });
    return row(
      l.api,
      when(l.expiresAt, 'never'),
      h(
        'details',
        {},
        h('summary', {}, `${granted.length} API ids`),
        h(
          'ul',
          {},
          granted.map((a) => h('li', {}, a)),
        ),
      ),
      button('Revoke', ask, { kind: 'danger', name: `Revoke licence ${l.id}` }),
    );
  };
  return [
    h('h2', {}, 'Licences'),
    table(['API pattern', 'Expires', 'API ids it grants', ''], vendor.licences.map(licenceRow)),
    revealing('Grant licence', grantForm, pattern.input),
    grantForm,
  ];
}

/**
 * @param {import('../admin-client.js').ViewContext} view
 * @param {string} vendorId
 */
export async function vendorView({ main }, vendorId) {
  const errors = alertBox();
  const notice = statusBox();
  const secretBox = h('div');
  const heading = h('h1', {}, `Vendor ${vendorId}`);
  main.replaceChildren(heading, errors, notice, secretBox);
  const path = `/vendors/${seg(vendorId)}`;
  /** @type {Array<{ apiId: string }>} */
  let apis = [];
  const redraw = async () => {
    /** @type {{ data: Vendor }} */
    const { data: vendor } = await api('GET', path);
    /** @type {{ data: import('../types.js').PortalUser[] }} */
    const { data: portalUsers } = await api('GET', `${path}/portal-users`);
    if (apis.length === 0) apis = (await api('GET', '/apis')).data;
    heading.textContent = `Vendor ${vendor.name} (${vendor.id})`;
    /** @type {VendorScreen} */
    const part = { path, notice, errors, secretBox, act: actions({ errors, notice, refresh: redraw }), redraw };
    main.replaceChildren(
      heading,
      errors,
      notice,
      secretBox,
      ...statusAndLimit(vendor, part, portalUsers.length),
      ...licencesPart(vendor, apis, part),
      ...keysPart(vendor.keys, part),
      ...portalUsersPart(vendor.id, portalUsers, part),
      trafficChart({ vendorId: vendor.id, apiIds: [...new Set(vendor.licences.flatMap((l) => matching(l.api, apis)))] }),
    );
  };
  await attempt(errors, redraw);
}
