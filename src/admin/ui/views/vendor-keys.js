// @ts-check
// The Keys part of a vendor's screen: the vendor's keys (prefix, user, status, created, last used,
// expiry), Issue key (its secret shown once, with a copy button, and taken off the page when that
// key is revoked), Revoke (asking first) and Rotate (asking first: a new key for the same user; the
// old one expires after the overlap chosen, 24 h by default). Writes `/v1/vendors/{id}/keys` and
// `/v1/keys/{keyId}`.
import { askFirst } from '../../../ui-kit/confirm.js';
import { button, h } from '../../../ui-kit/dom.js';
import { field, inlineForm, revealing, submit } from '../../../ui-kit/forms.js';
import { when } from '../../../ui-kit/format.js';
import { row, table } from '../../../ui-kit/tables.js';
import { seg, write } from '../admin-client.js';

/** @typedef {import('../types.js').Key} Key */
/** @typedef {import('../types.js').IssuedKey} IssuedKey */

const HOUR_MS = 3_600_000;

/**
 * @typedef {object} VendorScreen
 * @property {string} path the vendor's path in the admin API
 * @property {HTMLElement} notice the screen's status (role="status")
 * @property {HTMLElement} errors the screen's alert
 * @property {HTMLElement} secretBox where an issued key's secret or a portal token shows, once; `data-key-id` or
 *   `data-portal-user-id` names whose it is
 * @property {import('../../../ui-kit/forms.js').Act} act
 * @property {() => unknown} redraw
 */

/**
 * A new key's secret, shown this once (the status says what was done).
 * @param {HTMLElement} box
 * @param {IssuedKey} issued
 */
function showSecret(box, issued) {
  delete box.dataset.portalUserId;
  box.dataset.keyId = issued.id;
  box.replaceChildren(
    h('div', { class: 'notice' }, `The secret of key ${issued.id} for user ${issued.userId}, shown this once; store it now:`),
    h('p', { class: 'secret' }, issued.secret),
    button('Copy', () => navigator.clipboard?.writeText(issued.secret), { kind: 'secondary' }),
  );
}

/**
 * @param {Key} k
 * @param {VendorScreen} part
 */
function keyRow(k, { path, notice, secretBox, act }) {
  const cell = h('td');
  const keyPath = `/keys/${seg(k.id)}`;
  const revoke = act(async () => {
    const res = await write('DELETE', keyPath, undefined, notice);
    // The secret of a key that no longer works has no business on the page.
    if (res.status === 204 && secretBox.dataset.keyId === k.id) {
      secretBox.replaceChildren();
      delete secretBox.dataset.keyId;
    }
    return `Revoked key ${k.prefix} of user ${k.userId}: it no longer works.`;
  });
  const confirmRevoke = () =>
    askFirst({
      title: `Revoke key ${k.prefix}?`,
      lost: [`Key ${k.prefix} of user ${k.userId} stops working at once: its calls are refused (401). Last used: ${when(k.lastUsedAt, 'never')}.`],
      onConfirm: revoke,
    });
  const overlap = field('Overlap hours', { type: 'number', value: 24 });
  const rotate = act(async () => {
    const issued = await write(
      'POST',
      `${path}/keys`,
      { userId: k.userId, ...(k.certificateThumbprints ? { certificateThumbprints: k.certificateThumbprints } : {}) },
      notice,
    );
    const expiresAt = new Date(Date.now() + Number(overlap.input.value || 24) * HOUR_MS).toISOString();
    await write('PATCH', keyPath, { expiresAt }, notice);
    if (issued.status !== 201) return undefined;
    showSecret(secretBox, issued.data);
    return `Rotated key ${k.prefix}: the new key ${issued.data.id} works now, the old one ${k.id} until ${when(expiresAt)}.`;
  });
  const chooseOverlap = () =>
    askFirst({
      title: `Rotate key ${k.prefix}?`,
      lost: [`Key ${k.prefix} of user ${k.userId} stops working when the overlap ends; a new key replaces it, its secret shown once.`],
      fields: [overlap.wrap],
      confirm: 'Rotate now',
      onConfirm: rotate,
    });
  if (k.status === 'active') {
    cell.append(
      button('Revoke', confirmRevoke, { kind: 'danger', name: `Revoke key ${k.id}` }),
      ' ',
      button('Rotate', chooseOverlap, { kind: 'secondary', name: `Rotate key ${k.id}` }),
    );
  }
  return row(k.prefix, k.userId, k.status, when(k.createdAt), when(k.lastUsedAt, 'never'), when(k.expiresAt, 'never'), cell);
}

/**
 * @param {Key[]} keys
 * @param {VendorScreen} part
 */
export function keysPart(keys, part) {
  const user = field('User id', { required: true });
  const thumbprint = field('Certificate thumbprint');
  const issueForm = inlineForm(
    part.act(async () => {
      const body = { userId: user.value(), ...(thumbprint.value() ? { certificateThumbprints: [thumbprint.value()] } : {}) };
      const res = await write('POST', `${part.path}/keys`, body, part.notice);
      if (res.status !== 201) return undefined;
      showSecret(part.secretBox, res.data);
      return `Issued key ${res.data.id} for user ${res.data.userId}.`;
    }),
    user.wrap,
    thumbprint.wrap,
    submit('Issue'),
  );
  return [
    h('h2', {}, 'Keys'),
    table(
      ['Prefix', 'User', 'Status', 'Created', 'Last used', 'Expires', ''],
      keys.map((k) => keyRow(k, part)),
    ),
    revealing('Issue key', issueForm, user.input),
    issueForm,
  ];
}
