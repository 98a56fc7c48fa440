// @ts-check
// The Admins screen (owner only): named admins with their status, Create admin and Re-enrol (a
// one-time enrolment code to hand over, never a token for someone else), Revoke token and Delete
// (`/v1/admins`).
import { button, h } from '../../../ui-kit/dom.js';
import { actions, alertBox, field, inlineForm, submit } from '../../../ui-kit/forms.js';
import { when } from '../../../ui-kit/format.js';
import { row, table } from '../../../ui-kit/tables.js';
import { api, seg } from '../admin-client.js';

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
 * @param {AdminRecord} a
 * @param {HTMLElement} notice
 * @param {import('../../../ui-kit/forms.js').Act} act
 */
function adminRow(a, notice, act) {
  const path = `/admins/${seg(a.id)}`;
  const cell = h('td');
  const confirmDelete = () =>
    cell.replaceChildren(
      `Delete ${a.id}? `,
      button(
        'Confirm',
        act(() => api('DELETE', path)),
        { kind: 'danger' },
      ),
    );
  cell.append(
    button(
      'Revoke token',
      act(() => api('POST', `${path}/token`)),
      { kind: 'secondary', name: `Revoke token of ${a.id}` },
    ),
    ' ',
    button(
      'Re-enrol',
      act(async () => showCode(notice, (await api('POST', `${path}/enrolment`)).data)),
      { kind: 'secondary', name: `Re-enrol ${a.id}` },
    ),
    ' ',
    button('Delete', confirmDelete, { kind: 'danger', name: `Delete admin ${a.id}` }),
  );
  return row(a.id, a.name, a.role, a.status, a.tokenPrefix ?? '', when(a.createdAt), cell);
}

/** @param {import('../admin-client.js').ViewContext} view */
export async function adminsView({ main }) {
  const errors = alertBox();
  const notice = h('div');
  const body = h('tbody');
  const load = async () => {
    /** @type {{ data: AdminRecord[] }} */
    const { data: admins } = await api('GET', '/admins');
    body.replaceChildren(...admins.map((a) => adminRow(a, notice, act)));
  };
  // The notice keeps the last code shown: an action clears only the errors.
  const act = actions({ errors, refresh: load });
  const id = field('Admin id', { required: true });
  const name = field('Name', { required: true });
  const role = field('Role', { tag: 'select', options: ['viewer', 'operator', 'approver', 'owner'] });
  const create = act(async () => {
    showCode(notice, (await api('POST', '/admins', { id: id.value(), name: name.value(), role: role.input.value })).data);
    id.clear();
    name.clear();
  });
  main.replaceChildren(
    h('h1', {}, 'Admins'),
    inlineForm(create, id.wrap, name.wrap, role.wrap, submit('Create admin')),
    errors,
    notice,
    table(['Admin id', 'Name', 'Role', 'Status', 'Token prefix', 'Created', ''], body),
  );
  await act(async () => undefined)();
}
