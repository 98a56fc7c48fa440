// @ts-check
// A vendor's screen (`#/vendors/<id>`): suspend or activate, the rate limit, licences with the API
// ids each pattern grants (from the catalogue, `GET /v1/apis`), Grant licence and Revoke, and the
// keys (vendor-keys.js). Every action redraws the screen from the API.
import { button, h } from '../../../ui-kit/dom.js';
import { actions, alertBox, attempt, field, inlineForm, revealing, submit } from '../../../ui-kit/forms.js';
import { when } from '../../../ui-kit/format.js';
import { row, table } from '../../../ui-kit/tables.js';
import { api, seg, write } from '../admin-client.js';
import { keysPart } from './vendor-keys.js';
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
 * @param {VendorScreen} part
 */
function statusAndLimit(vendor, { path, notice, act }) {
  const active = vendor.status === 'active';
  const points = field('Points', { type: 'number', value: vendor.rateLimit?.points ?? '' });
  const window = field('Window seconds', { type: 'number', value: vendor.rateLimit?.durationSeconds ?? '' });
  const setLimit = act(() => write('PUT', `${path}/rate-limit`, { points: Number(points.input.value), durationSeconds: Number(window.input.value) }, notice));
  return [
    h(
      'p',
      {},
      `Status: ${vendor.status} `,
      button(
        active ? 'Suspend' : 'Activate',
        act(() => write('PATCH', path, { status: active ? 'suspended' : 'active' }, notice)),
        { kind: 'secondary' },
      ),
    ),
    inlineForm(setLimit, points.wrap, window.wrap, submit('Set rate limit')),
  ];
}

/**
 * @param {Vendor} vendor
 * @param {Array<{ apiId: string }>} apis
 * @param {VendorScreen} part
 */
function licencesPart(vendor, apis, { path, notice, act }) {
  const pattern = field('API pattern', { required: true, placeholder: 'GET*' });
  const expires = field('Expires at', { placeholder: '2027-01-01T00:00:00Z' });
  const grant = act(() => write('POST', `${path}/licences`, { api: pattern.value(), ...(expires.value() ? { expiresAt: expires.value() } : {}) }, notice));
  const grantForm = inlineForm(grant, pattern.wrap, expires.wrap, submit('Grant'));
  const licenceRow = (/** @type {import('../types.js').Licence} */ l) => {
    const granted = matching(l.api, apis);
    return row(
      l.api,
      when(l.expiresAt),
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
      button(
        'Revoke',
        act(() => write('DELETE', `${path}/licences/${seg(l.id)}`, undefined, notice)),
        { kind: 'danger', name: `Revoke licence ${l.id}` },
      ),
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
  const notice = h('div');
  const secretBox = h('div');
  const heading = h('h1', {}, `Vendor ${vendorId}`);
  main.replaceChildren(heading, errors, notice, secretBox);
  const path = `/vendors/${seg(vendorId)}`;
  /** @type {Array<{ apiId: string }>} */
  let apis = [];
  const redraw = async () => {
    /** @type {{ data: Vendor }} */
    const { data: vendor } = await api('GET', path);
    if (apis.length === 0) apis = (await api('GET', '/apis')).data;
    heading.textContent = `Vendor ${vendor.name} (${vendor.id})`;
    /** @type {VendorScreen} */
    const part = { path, notice, secretBox, act: actions({ errors, notice, refresh: redraw }), redraw };
    main.replaceChildren(
      heading,
      errors,
      notice,
      secretBox,
      ...statusAndLimit(vendor, part),
      ...licencesPart(vendor, apis, part),
      ...keysPart(vendor.keys, part),
      trafficChart({ vendorId: vendor.id, apiIds: [...new Set(vendor.licences.flatMap((l) => matching(l.api, apis)))] }),
    );
  };
  await attempt(errors, redraw);
}
