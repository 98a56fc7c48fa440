// @ts-check
// The Portal users part of a vendor's screen: the vendor's own developers who may sign in to the
// vendor portal (`/portal/` on the vendor port) with their token's prefix and expiry; Invite
// portal user (the `cbp_` token shown once, with a copy button and where the portal is), New token
// (asking first: the old token stops signing in; the new one shown once) and Remove (asking
// first). Writes `/v1/vendors/{id}/portal-users`; with approvals required, an invitation and a new
// token are filed for approval (the approver is shown the token) and a removal applies at once.
import { askFirst } from '../../../ui-kit/confirm.js';
import { button, h } from '../../../ui-kit/dom.js';
import { field, inlineForm, revealing, submit } from '../../../ui-kit/forms.js';
import { when } from '../../../ui-kit/format.js';
import { row, table } from '../../../ui-kit/tables.js';
import { seg, write } from '../admin-client.js';

/** @typedef {import('../types.js').PortalUser} PortalUser */
/** @typedef {import('../types.js').InvitedPortalUser} InvitedPortalUser */
/** @typedef {import('./vendor-keys.js').VendorScreen} VendorScreen */

/**
 * Where the portal is. The admin port does not know the vendor port's public address (behind a
 * proxy, only the proxy does), so it is said relative to the address the vendor calls the API at.
 */
const PORTAL_WHERE = 'the vendor port’s /portal/ (the address the vendor calls the API at, with /portal/ after it)';

/**
 * A portal user's token, shown this once (the status says what was done).
 * @param {HTMLElement} box the screen's secret box
 * @param {InvitedPortalUser} invited
 */
function showToken(box, invited) {
  delete box.dataset.keyId;
  box.dataset.portalUserId = invited.id;
  box.replaceChildren(
    h(
      'div',
      { class: 'notice' },
      `The portal token of ${invited.name} <${invited.email}>, shown this once; store it now and hand it over privately. It works until ${when(invited.tokenExpiresAt)}.`,
    ),
    h('p', { class: 'secret' }, invited.token),
    button('Copy', () => navigator.clipboard?.writeText(invited.token), { kind: 'secondary', name: 'Copy portal token' }),
    h('p', {}, `They sign in with it at ${PORTAL_WHERE}.`),
  );
}

/**
 * Takes a token off the page once it no longer signs in (its user removed).
 * @param {HTMLElement} box
 * @param {string} portalUserId
 */
function forgetToken(box, portalUserId) {
  if (box.dataset.portalUserId !== portalUserId) return;
  box.replaceChildren();
  delete box.dataset.portalUserId;
}

/**
 * @param {PortalUser} pu
 * @param {VendorScreen} part
 */
function portalUserRow(pu, { path, notice, secretBox, act }) {
  const userPath = `${path}/portal-users/${seg(pu.id)}`;
  const who = `${pu.name} <${pu.email}>`;
  const reissue = act(async () => {
    const res = await write('POST', `${userPath}/token`, undefined, notice);
    if (res.status !== 200) return undefined;
    showToken(secretBox, res.data);
    return `Issued a new portal token for ${who}: ${res.data.tokenPrefix}…; the old one ${pu.tokenPrefix}… no longer signs in.`;
  });
  const confirmReissue = () =>
    askFirst({
      title: `Issue a new portal token for ${pu.name}?`,
      lost: [`The token ${pu.tokenPrefix}… of ${who} stops signing in to the vendor portal at once; the new one is shown this once.`],
      onConfirm: reissue,
    });
  const remove = act(async () => {
    const res = await write('DELETE', userPath, undefined, notice);
    if (res.status === 204) forgetToken(secretBox, pu.id);
    return `Removed portal user ${who}: they can no longer use the vendor portal.`;
  });
  const confirmRemove = () =>
    askFirst({
      title: `Remove portal user ${pu.name}?`,
      lost: [`${who} can no longer sign in to the vendor portal, and a portal session of theirs open now is refused at its next request.`],
      onConfirm: remove,
    });
  return row(
    pu.name,
    pu.email,
    pu.tokenPrefix,
    when(pu.tokenExpiresAt),
    when(pu.createdAt),
    h(
      'td',
      {},
      button('New token', confirmReissue, { kind: 'secondary', name: `New token for ${pu.email}` }),
      ' ',
      button('Remove', confirmRemove, { kind: 'danger', name: `Remove portal user ${pu.email}` }),
    ),
  );
}

/**
 * @param {string} vendorId
 * @param {PortalUser[]} portalUsers
 * @param {VendorScreen} part
 */
export function portalUsersPart(vendorId, portalUsers, part) {
  const email = field('Email', { type: 'email', required: true, autocomplete: 'off' });
  const name = field('Name', { required: true });
  const inviteForm = inlineForm(
    part.act(async () => {
      const res = await write('POST', `${part.path}/portal-users`, { email: email.value(), name: name.value() }, part.notice);
      if (res.status !== 201) return undefined;
      showToken(part.secretBox, res.data);
      return `Invited ${res.data.name} <${res.data.email}> to the vendor portal of ${vendorId}.`;
    }),
    email.wrap,
    name.wrap,
    submit('Invite'),
  );
  return [
    h('h2', {}, 'Portal users'),
    h('p', { class: 'muted' }, `The vendor’s developers who may see its keys, usage and requests, and rotate its keys, at ${PORTAL_WHERE}.`),
    table(
      ['Name', 'Email', 'Token prefix', 'Token expires', 'Created', ''],
      portalUsers.map((pu) => portalUserRow(pu, part)),
    ),
    revealing('Invite portal user', inviteForm, email.input),
    inviteForm,
  ];
}
