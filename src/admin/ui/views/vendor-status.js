// @ts-check
// The status part of a vendor's screen: Suspend (asking first) or Activate, Delete vendor (asking
// first, then back to the Vendors list), and the rate limit in force, the vendor's own or the
// gateway default, with Set rate limit. A question before Suspend or Delete vendor names what the
// vendor loses: its active keys, its portal users and its calls in the last hour, read from
// `GET /v1/traffic`; when
// that does not answer (an older gateway, a timeout) the question says the calls are not known and
// still lets the admin go on. Writes `/v1/vendors/{id}` and its `rate-limit`.
import { askFirst } from '../../../ui-kit/confirm.js';
import { callsIn } from '../../../ui-kit/calls.js';
import { button, h } from '../../../ui-kit/dom.js';
import { attempt, carryOver, field, inlineForm, submit } from '../../../ui-kit/forms.js';
import { navigate } from '../../../ui-kit/router.js';
import { api, seg, write } from '../admin-client.js';

/** @typedef {import('../types.js').Vendor} Vendor */
/** @typedef {import('./vendor-keys.js').VendorScreen} VendorScreen */

/** How long a question waits for the traffic counts before it says they are not known. */
const CALLS_WAIT_MS = 3000;

/**
 * The vendor's keys that work now: active and not expired.
 * @param {Vendor} vendor
 */
const activeKeys = (vendor) => vendor.keys.filter((k) => k.status === 'active' && (!k.expiresAt || Date.parse(k.expiresAt) > Date.now()));

/**
 * The vendor's calls in the last hour, or null when the traffic counts do not answer.
 * @param {string} vendorId
 * @returns {Promise<number | null>}
 */
async function callsLastHour(vendorId) {
  /** @type {Promise<null>} */
  const late = new Promise((resolve) => setTimeout(() => resolve(null), CALLS_WAIT_MS));
  const counted = api('GET', `/traffic?vendor=${seg(vendorId)}&range=1h`).then(
    (answer) => callsIn(answer.data),
    () => null,
  );
  return Promise.race([counted, late]);
}

/**
 * What a vendor loses when suspended or deleted, in lines for the question.
 * @param {Vendor} vendor
 */
async function whatIsLost(vendor) {
  const keys = activeKeys(vendor);
  const calls = await callsLastHour(vendor.id);
  const plural = (/** @type {number} */ n, /** @type {string} */ one) => `${n} ${one}${n === 1 ? '' : 's'}`;
  return [
    `${plural(keys.length, 'active key')} ${keys.length === 1 ? 'stops' : 'stop'} working at once${keys.length ? `: ${keys.map((k) => `${k.prefix} (${k.userId})`).join(', ')}` : ''}.`,
    calls === null ? 'Calls in the last hour: not known (the traffic counts did not answer).' : `${plural(calls, 'call')} in the last hour.`,
  ];
}

/**
 * @param {string} text
 * @param {number} points
 * @param {number} seconds
 */
const limitText = (text, points, seconds) => `${text}${points} per ${seconds} s`;

/**
 * The rate limit in force, in words: the vendor's own, or the gateway default that applies.
 * @param {Vendor} vendor
 */
export function rateLimitInForce(vendor) {
  const own = vendor.rateLimit;
  if (own) return limitText('', own.points, own.durationSeconds);
  const effective = vendor.effectiveRateLimit;
  return effective ? `${limitText('', effective.points, effective.durationSeconds)} (gateway default)` : 'the gateway default';
}

/**
 * @param {Vendor} vendor
 * @param {VendorScreen} part
 * @param {number} portalUsers how many portal users the vendor has
 */
export function statusAndLimit(vendor, { path, notice, errors, act }, portalUsers) {
  const active = vendor.status === 'active';
  const effective = vendor.effectiveRateLimit;
  const points = field('Points', { type: 'number', value: vendor.rateLimit?.points ?? '', placeholder: effective ? String(effective.points) : undefined });
  const window = field('Window seconds', {
    type: 'number',
    value: vendor.rateLimit?.durationSeconds ?? '',
    placeholder: effective ? String(effective.durationSeconds) : undefined,
  });
  const setLimit = act(async () => {
    const limit = { points: Number(points.input.value), durationSeconds: Number(window.input.value) };
    await write('PUT', `${path}/rate-limit`, limit, notice);
    return `Rate limit of ${vendor.id} set to ${limitText('', limit.points, limit.durationSeconds)}.`;
  });
  const suspend = act(async () => {
    await write('PATCH', path, { status: 'suspended' }, notice);
    return `Suspended vendor ${vendor.id}: its keys stop working until it is activated.`;
  });
  const activate = act(async () => {
    await write('PATCH', path, { status: 'active' }, notice);
    return `Activated vendor ${vendor.id}: its active keys work again.`;
  });
  const remove = () =>
    attempt(errors, async () => {
      errors.textContent = '';
      const res = await write('DELETE', path, undefined, notice);
      if (res.status !== 204) return;
      carryOver(`Deleted vendor ${vendor.id} with its keys and licences${portalUsers ? ' and portal users' : ''}.`);
      navigate('vendors');
    });
  // One question at a time: a second click while the traffic counts are read opens no second dialog.
  let asking = false;
  const ask = (/** @type {'suspend' | 'delete'} */ what) => async () => {
    if (asking) return;
    asking = true;
    const lost = await whatIsLost(vendor).finally(() => {
      asking = false;
    });
    askFirst(
      what === 'suspend'
        ? {
            title: `Suspend vendor ${vendor.id}?`,
            lost: [
              ...lost,
              ...(portalUsers ? [`Its ${portalUsers} portal users are refused by the vendor portal until it is activated.`] : []),
              'Its keys and licences stay; Activate gives the access back.',
            ],
            onConfirm: suspend,
          }
        : {
            title: `Delete vendor ${vendor.id}?`,
            lost: [
              ...lost,
              `Its ${vendor.keys.length} keys and ${vendor.licences.length} licences${portalUsers ? ` and ${portalUsers} portal users` : ''} are removed for good; its users keep their permissions.`,
            ],
            onConfirm: remove,
          },
    );
  };
  return [
    h(
      'p',
      { class: 'row' },
      `Status: ${vendor.status}`,
      active ? button('Suspend', ask('suspend'), { kind: 'secondary' }) : button('Activate', activate, { kind: 'secondary' }),
      button('Delete vendor', ask('delete'), { kind: 'danger' }),
    ),
    h('p', {}, `Rate limit: ${rateLimitInForce(vendor)}`),
    inlineForm(setLimit, points.wrap, window.wrap, submit('Set rate limit')),
  ];
}
