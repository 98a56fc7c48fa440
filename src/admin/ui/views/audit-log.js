// @ts-check
// The Audit log screen: the newest 500 entries, filtered in the page by actor, vendor and date,
// each entry's before and after as a diff (`GET /v1/audit`).
import { h } from '../../../ui-kit/dom.js';
import { alertBox, attempt, field } from '../../../ui-kit/forms.js';
import { jsonDiff, when } from '../../../ui-kit/format.js';
import { row, table } from '../../../ui-kit/tables.js';
import { api } from '../admin-client.js';
import { auditVerifyControl } from './audit-verify.js';

/** @typedef {import('../types.js').AuditEntry} AuditEntry */

/** @param {AuditEntry} e */
const entryRow = (e) =>
  row(
    when(e.at),
    e.actor,
    e.action,
    e.target,
    h(
      'details',
      {},
      h('summary', {}, 'Before → after'),
      jsonDiff(e.before, e.after),
      e.approval ? h('p', { class: 'muted' }, `Approval: ${JSON.stringify(e.approval)}`) : null,
    ),
  );

/** @param {import('../admin-client.js').ViewContext} view */
export async function auditLogView({ main }) {
  const errors = alertBox();
  const actor = field('Actor', { placeholder: 'admin:otto' });
  const vendor = field('Vendor', { placeholder: 'acme' });
  const since = field('From date', { type: 'date' });
  const body = h('tbody');
  /** @type {AuditEntry[]} */
  let entries = [];
  const render = () => {
    const [a, v] = [actor.value(), vendor.value()];
    const from = since.input.value ? Date.parse(since.input.value) : 0;
    const shown = entries.filter((e) => (!a || e.actor.includes(a)) && (!v || e.target.includes(`vendors/${v}`)) && Date.parse(e.at) >= from);
    body.replaceChildren(...shown.map(entryRow));
  };
  for (const f of [actor, vendor, since]) f.input.addEventListener('input', render);
  main.replaceChildren(
    h('h1', {}, 'Audit log'),
    auditVerifyControl(),
    h('div', { class: 'row' }, actor.wrap, vendor.wrap, since.wrap),
    errors,
    table(['When', 'Actor', 'Action', 'Target', 'Change'], body),
  );
  await attempt(errors, async () => {
    entries = (await api('GET', '/audit?limit=500')).data;
    render();
  });
}
