// @ts-check
// The Users screen: every user's permissions, Grant permission and Revoke (asking first)
// (`/v1/users/{userId}/permissions`); what succeeded is said in the screen's status.
import { askFirst } from '../../../ui-kit/confirm.js';
import { button, h } from '../../../ui-kit/dom.js';
import { actions, alertBox, field, inlineForm, statusBox, submit } from '../../../ui-kit/forms.js';
import { row, table } from '../../../ui-kit/tables.js';
import { api, seg, write } from '../admin-client.js';

/** @param {import('../admin-client.js').ViewContext} view */
export async function usersView({ main }) {
  const errors = alertBox();
  const notice = statusBox();
  const body = h('tbody');
  const load = async () => {
    /** @type {{ data: import('../types.js').User[] }} */
    const { data: users } = await api('GET', '/users');
    const revoke = (/** @type {string} */ userId, /** @type {{ id: string, api: string }} */ permission) => {
      const confirmed = act(async () => {
        await write('DELETE', `/users/${seg(userId)}/permissions/${seg(permission.id)}`, undefined, notice);
        return `Revoked permission ${permission.api} of ${userId}.`;
      });
      const ask = () =>
        askFirst({
          title: `Revoke permission ${permission.api} of ${userId}?`,
          lost: [`User ${userId} may no longer call the API ids ${permission.api} matches, with any vendor's key, unless another permission grants them.`],
          onConfirm: confirmed,
        });
      return button('Revoke', ask, { kind: 'danger', name: `Revoke permission ${permission.id} of ${userId}` });
    };
    body.replaceChildren(...users.flatMap((u) => u.permissions.map((p) => row(u.id, p.api, revoke(u.id, p)))));
  };
  const act = actions({ errors, notice, refresh: load });
  const user = field('User id', { required: true });
  const pattern = field('API pattern', { required: true, placeholder: 'GETaccounts*' });
  const grant = act(async () => {
    const [userId, api] = [user.value(), pattern.value()];
    await write('POST', `/users/${seg(userId)}/permissions`, { api }, notice);
    return `Granted permission ${api} to ${userId}.`;
  });
  main.replaceChildren(
    h('h1', {}, 'Users'),
    inlineForm(grant, user.wrap, pattern.wrap, submit('Grant permission')),
    errors,
    notice,
    table(['User id', 'API pattern', ''], body),
  );
  await act(async () => undefined)();
}
