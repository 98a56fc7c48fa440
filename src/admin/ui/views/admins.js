// @ts-check
// The Admins screen (owner only): every admin with how they sign in and their status. Named admins
// (a token): Create admin and Re-enrol (a one-time enrolment code to hand over, never a token for
// someone else), Revoke token and Delete (each asking first) (`/v1/admins`). Single-sign-on admins
// (listed from their first sign-in; their role comes from the identity provider's groups): Block
// (asking first; their sessions end at once) and Unblock, which four eyes may file for approval
// (`/v1/admins/{id}/block`). What succeeded is said in the screen's status; the code to hand over
// stays in a box of its own.
import { askFirst } from '../../../ui-kit/confirm.js';
import { button, h } from '../../../ui-kit/dom.js';
import { actions, alertBox, attempt, field, inlineForm, statusBox, submit, tell } from '../../../ui-kit/forms.js';
import { when } from '../../../ui-kit/format.js';
import { row, table } from '../../../ui-kit/tables.js';
import { api, seg, write } from '../admin-client.js';

/** @typedef {import('../types.js').AdminRecord} AdminRecord */
/** @typedef {{ id: string, status?: string, enrolmentCode: string, enrolmentExpiresAt?: string }} Enrolment */

/**
 * The code to hand over, once: at once, or once another approver approves its filing.
 * @param {HTMLElement} notice
 * @param {Enrolment} answer
 */
function showCode(notice, answer) {
  notice.className = '';
  const text =
    answer.status === 'pending'
      ? `Filed for approval as change ${answer.id}. Once another approver approves it, this enrolment code works once, for 24 h; hand it over now:`
      : `Enrolment code for ${answer.id}, valid once until ${when(answer.enrolmentExpiresAt)}; hand it over now (they redeem it on the sign-in page):`;
  notice.replaceChildren(h('div', { class: 'notice' }, text), h('p', { class: 'secret' }, answer.enrolmentCode));
}

/**
 * One's own new token, once: the old one (and the sessions it opened) stops working, so the admin
 * copies this one before signing in again.
 * @param {HTMLElement} notice
 * @param {{ token: string }} answer
 */
function showOwnToken(notice, answer) {
  notice.className = '';
  notice.replaceChildren(
    h('div', { class: 'notice' }, 'Your new admin token, shown once: copy it now and sign in with it (your old token no longer works):'),
    h('p', { class: 'secret' }, answer.token),
  );
}

/**
 * A write's outcome: done, or filed for approval (202).
 * @param {{ status: number, data: any }} res
 * @param {string} done
 */
const said = (res, done) => (res.status === 202 ? `Filed for approval as change ${res.data?.id}: awaiting another approver.` : done);

/**
 * @param {AdminRecord} a
 * @param {HTMLElement} codeBox
 * @param {import('../../../ui-kit/forms.js').Act} act
 * @param {{ id: string, replaceToken: () => void }} mine the signed-in admin: their own row replaces their token, never revokes it
 */
function adminRow(a, codeBox, act, mine) {
  const path = `/admins/${seg(a.id)}`;
  const cell = h('td');
  const confirmDelete = () =>
    askFirst({
      title: `Delete admin ${a.id}?`,
      lost: [`${a.name} (${a.role}) can no longer sign in: their token and sessions stop working at once.`],
      onConfirm: act(async () => said(await api('DELETE', path), `Deleted admin ${a.id}.`)),
    });
  const confirmRevokeToken = () =>
    askFirst({
      title: `Revoke the token of ${a.id}?`,
      lost: [`${a.name}'s token stops working at once; they need a new enrolment code (Re-enrol) to get another.`],
      onConfirm: act(async () => said(await api('POST', `${path}/token`), `Revoked the token of ${a.id}.`)),
    });
  const confirmReenrol = () =>
    askFirst({
      title: `Re-enrol ${a.id}?`,
      lost: [`${a.name}'s current token stops working once this applies; they get a new one by redeeming the enrolment code shown next.`],
      onConfirm: act(async () => {
        const res = await api('POST', `${path}/enrolment`);
        showCode(codeBox, res.data);
        return said(res, `Issued a new enrolment code for ${a.id}; their old token no longer works.`);
      }),
    });
  cell.append(
    a.id === mine.id
      ? button('Replace my token', mine.replaceToken, { kind: 'secondary' })
      : button('Revoke token', confirmRevokeToken, { kind: 'secondary', name: `Revoke token of ${a.id}` }),
    ' ',
    button('Re-enrol', confirmReenrol, { kind: 'secondary', name: `Re-enrol ${a.id}` }),
    ' ',
    button('Delete', confirmDelete, { kind: 'danger', name: `Delete admin ${a.id}` }),
  );
  return row(a.id, a.name, a.email ?? '', 'token', a.role, a.status, a.tokenPrefix ?? '', when(a.createdAt), cell);
}

/**
 * A single-sign-on admin: no token, no enrolment and no role to change here (the identity
 * provider's groups give the role at each sign-in), so an owner blocks and unblocks them. Never
 * one's own row: blocking it would end this session with no way back but another owner.
 * @param {AdminRecord} a
 * @param {import('../../../ui-kit/forms.js').Act} act
 * @param {HTMLElement} notice
 * @param {string} myId
 */
function ssoAdminRow(a, act, notice, myId) {
  const path = `/admins/${seg(a.id)}/block`;
  const who = `${a.name}${a.email ? ` <${a.email}>` : ''}`;
  const confirmBlock = () =>
    askFirst({
      title: `Block ${a.name} (${a.id})?`,
      lost: [
        `${who} (${a.role}) can no longer sign in with single sign-on, and every session of theirs ends now, on every instance.`,
        'Unblock lets them sign in again.',
      ],
      onConfirm: act(async () => said(await api('POST', path), `Blocked ${a.id}: they can no longer sign in, and their sessions have ended.`)),
    });
  const unblock = act(async () => {
    await write('DELETE', path, undefined, notice);
    return `Unblocked ${a.id}: they can sign in with single sign-on again.`;
  });
  const cell = h(
    'td',
    {},
    a.id === myId
      ? h('span', { class: 'muted' }, 'you')
      : a.status === 'blocked'
        ? button('Unblock', unblock, { kind: 'secondary', name: `Unblock ${a.id}` })
        : button('Block', confirmBlock, { kind: 'danger', name: `Block ${a.id}` }),
  );
  const status = a.status === 'blocked' && a.blockedAt ? `blocked since ${when(a.blockedAt)}` : a.status;
  return row(a.id, a.name, a.email ?? '', 'single sign-on', a.role, status, '', when(a.createdAt), cell);
}

/** @param {import('../admin-client.js').ViewContext} view */
export async function adminsView({ main, me }) {
  const errors = alertBox();
  const notice = statusBox();
  const codeBox = h('div');
  const body = h('tbody');
  const load = async () => {
    /** @type {{ data: AdminRecord[] }} */
    const { data: admins } = await api('GET', '/admins');
    body.replaceChildren(...admins.map((a) => (a.source === 'oidc' ? ssoAdminRow(a, act, notice, me.id) : adminRow(a, codeBox, act, mine))));
  };
  // The code box keeps the last code shown: an action clears only the errors and the status.
  const act = actions({ errors, notice, refresh: load });
  // One's own token is replaced, not revoked (revoking it would lock the signed-in admin out with
  // no way back but another owner). The sessions the old token opened end with it, so nothing is
  // reloaded: the page keeps the new token up until the admin has copied it and signs in again.
  const mine = {
    id: me.id,
    replaceToken: () =>
      askFirst({
        title: 'Replace your own token?',
        lost: ['Your current token and this session stop working at once; the new token is shown here once, to copy before you sign in again.'],
        onConfirm: () =>
          attempt(errors, async () => {
            showOwnToken(codeBox, (await api('POST', '/me/token')).data);
            tell(notice, 'Replaced your token: copy the new one shown below, then sign in with it.');
          }),
      }),
  };
  const id = field('Admin id', { required: true });
  const name = field('Name', { required: true });
  const role = field('Role', { tag: 'select', options: ['viewer', 'operator', 'approver', 'owner'] });
  const create = act(async () => {
    const answer = (await api('POST', '/admins', { id: id.value(), name: name.value(), role: role.input.value })).data;
    showCode(codeBox, answer);
    id.clear();
    name.clear();
    return answer.status === 'pending' ? `Filed admin ${answer.id} for approval.` : `Created admin ${answer.id}.`;
  });
  main.replaceChildren(
    h('h1', {}, 'Admins'),
    inlineForm(create, id.wrap, name.wrap, role.wrap, submit('Create admin')),
    errors,
    notice,
    codeBox,
    table(['Admin id', 'Name', 'Email', 'Signs in with', 'Role', 'Status', 'Token prefix', 'Created', ''], body),
  );
  await act(async () => undefined)();
}
