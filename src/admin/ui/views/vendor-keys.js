// @ts-check
// The Keys part of a vendor's screen: the vendor's keys (prefix, user, status, created, last used,
// expiry), Issue key (its secret shown once, with a copy button), Revoke (then Confirm) and Rotate
// (a new key for the same user; the old one expires after the overlap chosen, 24 h by default).
// Writes `/v1/vendors/{id}/keys` and `/v1/keys/{keyId}`.
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
 * @property {HTMLElement} notice
 * @property {HTMLElement} secretBox where an issued key's secret shows, once
 * @property {import('../../../ui-kit/forms.js').Act} act
 * @property {() => unknown} redraw
 */

/**
 * A new key's secret, shown this once.
 * @param {HTMLElement} box
 * @param {IssuedKey} issued
 * @param {string} what
 */
function showSecret(box, issued, what) {
  box.replaceChildren(
    h('div', { class: 'notice' }, `${what} ${issued.id} for user ${issued.userId}. Its secret is shown this once; store it now:`),
    h('p', { class: 'secret' }, issued.secret),
    button('Copy', () => navigator.clipboard?.writeText(issued.secret), { kind: 'secondary' }),
  );
}

/**
 * @param {Key} k
 * @param {VendorScreen} part
 */
function keyRow(k, { path, notice, secretBox, act, redraw }) {
  const cell = h('td');
  const keyPath = `/keys/${seg(k.id)}`;
  const confirmRevoke = () =>
    cell.replaceChildren(
      `Revoke ${k.prefix}? `,
      button(
        'Confirm',
        act(() => write('DELETE', keyPath, undefined, notice)),
        { kind: 'danger' },
      ),
      button('Cancel', () => redraw(), { kind: 'secondary' }),
    );
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
    if (issued.status === 201) showSecret(secretBox, issued.data, `Issued key (replacing ${k.id}, which expires ${when(expiresAt)})`);
  });
  const chooseOverlap = () => cell.replaceChildren(overlap.wrap, button('Rotate now', rotate));
  if (k.status === 'active') {
    cell.append(
      button('Revoke', confirmRevoke, { kind: 'danger', name: `Revoke key ${k.id}` }),
      ' ',
      button('Rotate', chooseOverlap, { kind: 'secondary', name: `Rotate key ${k.id}` }),
    );
  }
  return row(k.prefix, k.userId, k.status, when(k.createdAt), when(k.lastUsedAt), when(k.expiresAt), cell);
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
      if (res.status === 201) showSecret(part.secretBox, res.data, 'Issued key');
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
