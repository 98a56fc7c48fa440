// @ts-check
// The Approvals screen: changes filed under four eyes with what they would change, Approve and
// Reject for an approver or owner; a maker's own changes show as awaiting another approver
// (`/v1/changes`, whose paths are contract).
import { button, h } from '../../../ui-kit/dom.js';
import { actions, alertBox, statusBox, tell } from '../../../ui-kit/forms.js';
import { jsonDiff, when } from '../../../ui-kit/format.js';
import { row, table } from '../../../ui-kit/tables.js';
import { api, seg } from '../admin-client.js';

/** @typedef {import('../types.js').Proposal} Proposal */
/** @typedef {import('../admin-client.js').Admin} Admin */

/**
 * @param {Proposal} c
 * @param {Admin} me
 * @param {(verb: 'approve' | 'reject') => (event?: Event) => unknown} decide
 */
function proposalRow(c, me, decide) {
  const mine = c.makerId === me.id;
  const canDecide = !mine && (me.role === 'approver' || me.role === 'owner');
  return row(
    c.id,
    `admin:${c.makerId}`,
    `${c.action} ${c.target}`,
    c.status === 'expired' ? 'expired' : when(c.expiresAt),
    jsonDiff(c.preview?.before ?? null, c.preview?.after ?? null),
    h(
      'td',
      {},
      mine ? h('span', { class: 'muted' }, 'Awaiting another approver') : null,
      canDecide && c.status === 'pending' ? button('Approve', decide('approve'), { name: `Approve ${c.id}` }) : null,
      canDecide ? button('Reject', decide('reject'), { kind: 'danger', name: `Reject ${c.id}` }) : null,
    ),
  );
}

/** @param {import('../admin-client.js').ViewContext} view */
export async function approvalsView({ main, me }) {
  const errors = alertBox();
  const notice = statusBox();
  const body = h('tbody');
  const load = async () => {
    /** @type {{ data: Proposal[] }} */
    const { data: proposals } = await api('GET', '/changes');
    body.replaceChildren(...proposals.map((c) => proposalRow(c, me, (verb) => act(() => decide(c, verb)))));
  };
  const act = actions({ errors, notice, refresh: load });
  const decide = async (/** @type {Proposal} */ c, /** @type {'approve' | 'reject'} */ verb) => {
    const res = await api('POST', `/changes/${seg(c.id)}/${verb}`);
    // What an approved issue or invitation made, shown to the approver this once.
    const secret = res.data?.secret
      ? ` The new key's secret, shown this once: ${res.data.secret}`
      : res.data?.token
        ? ` The portal token, shown this once: ${res.data.token} (they sign in at the vendor port's /portal/).`
        : '';
    tell(notice, verb === 'approve' ? `Approved ${c.id}; it is in force.${secret}` : `Rejected ${c.id}.`);
  };
  const { data: status } = await api('GET', '/me');
  main.replaceChildren(
    h('h1', {}, 'Approvals'),
    h(
      'p',
      { class: 'muted' },
      status.approvals === 'required'
        ? 'Four eyes are on: writes that grant access wait here for another approver.'
        : 'Four eyes are off (admin.approvals): writes apply at once.',
    ),
    errors,
    notice,
    table(['Change', 'Maker', 'What', 'Expires', 'Would change', ''], body),
  );
  await act(async () => undefined)();
}
