// @ts-check
// The Users screen: every user's permissions, Grant permission and Revoke
// (`/v1/users/{userId}/permissions`).
import { button, h } from '../../../ui-kit/dom.js';
import { actions, alertBox, field, inlineForm, submit } from '../../../ui-kit/forms.js';
import { row, table } from '../../../ui-kit/tables.js';
import { api, seg, write } from '../admin-client.js';

/** @param {import('../admin-client.js').ViewContext} view */
export async function usersView({ main }) {
  const errors = alertBox();
  const notice = h('div');
  const body = h('tbody');
  const load = async () => {
    /** @type {{ data: import('../types.js').User[] }} */
    const { data: users } = await api('GET', '/users');
    const revoke = (/** @type {string} */ userId, /** @type {string} */ permissionId) =>
      button(
        'Revoke',
        act(() => write('DELETE', `/users/${seg(userId)}/permissions/${seg(permissionId)}`, undefined, notice)),
        { kind: 'danger', name: `Revoke permission ${permissionId} of ${userId}` },
      );
    body.replaceChildren(...users.flatMap((u) => u.permissions.map((p) => row(u.id, p.api, revoke(u.id, p.id)))));
  };
  const act = actions({ errors, notice, refresh: load });
  const user = field('User id', { required: true });
  const pattern = field('API pattern', { required: true, placeholder: 'GETaccounts*' });
  const grant = act(() => write('POST', `/users/${seg(user.value())}/permissions`, { api: pattern.value() }, notice));
  main.replaceChildren(
    h('h1', {}, 'Users'),
    inlineForm(grant, user.wrap, pattern.wrap, submit('Grant permission')),
    errors,
    notice,
    table(['User id', 'API pattern', ''], body),
  );
  await act(async () => undefined)();
}
