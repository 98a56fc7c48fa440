// @ts-check
// The Audit log screen: a page of entries, newest first, filtered by the server (`GET /v1/audit`
// with actor, vendor, action and a date range), **Older entries** following the answer's
// `Link: rel="next"` through the whole log, and each entry's before and after side by side as a
// structural diff (ui-kit/structural-diff.js). Reads the log; sets nothing.
import { button, h } from '../../../ui-kit/dom.js';
import { alertBox, attempt, field, tell } from '../../../ui-kit/forms.js';
import { when } from '../../../ui-kit/format.js';
import { structuralDiff } from '../../../ui-kit/structural-diff.js';
import { row, table } from '../../../ui-kit/tables.js';
import { api } from '../admin-client.js';
import { auditVerifyControl } from './audit-verify.js';

/** @typedef {import('../types.js').AuditEntry} AuditEntry */

/** Entries per page. */
const PAGE = 50;
/** How long typing pauses before the filter is asked of the server. */
const TYPING_PAUSE_MS = 300;

/**
 * The before/after of an entry, built when first opened (an access document's diff can be long).
 * @param {AuditEntry} e
 */
function change(e) {
  const details = h('details', {}, h('summary', {}, 'Before → after'));
  details.addEventListener('toggle', () => {
    if (!details.open || details.childElementCount > 1) return;
    details.append(structuralDiff(e.before, e.after), e.approval ? h('p', { class: 'muted' }, `Approval: ${JSON.stringify(e.approval)}`) : '');
  });
  return details;
}

/** @param {AuditEntry} e */
const entryRow = (e) => row(when(e.at), e.actor, e.action, e.target, (e.vendorIds ?? []).join(', ') || '—', change(e));

/**
 * The admin API path of the next page, from `Link: <…>; rel="next"`, or null on the last page.
 * @param {Headers} headers
 */
function nextPage(headers) {
  const target = /<([^>]*)>;\s*rel="next"/.exec(headers.get('link') ?? '')?.[1];
  return target === undefined ? null : target.replace(/^\/v1(?=\/)/, '');
}

/** @param {import('../admin-client.js').ViewContext} view */
export async function auditLogView({ main }) {
  const errors = alertBox();
  const status = h('p', { role: 'status', class: 'muted' });
  const filters = {
    actor: field('Actor', { placeholder: 'admin:otto' }),
    vendor: field('Vendor', { placeholder: 'acme' }),
    action: field('Action', { placeholder: 'key.revoke' }),
    since: field('From date', { type: 'date' }),
    until: field('To date', { type: 'date' }),
  };
  const body = h('tbody');
  /** The path of the page after the last one shown; null when it was the last. */
  let next = /** @type {string | null} */ (null);
  let shown = 0;
  // Only the newest request's answer is shown: a slower answer to an older filter is dropped.
  let asked = 0;

  const say = () => {
    const found = `${shown} ${shown === 1 ? 'entry' : 'entries'} shown`;
    tell(status, next === null ? `${found}; no older entries match.` : `${found}; Older entries reads further back.`, 'muted');
    older.hidden = next === null;
  };
  /** @param {string} path @param {boolean} fresh a new filter (else the next page) */
  const load = (path, fresh) =>
    attempt(errors, async () => {
      const mine = ++asked;
      const res = await api('GET', path);
      if (mine !== asked) return;
      errors.textContent = '';
      const rows = /** @type {AuditEntry[]} */ (res.data).map(entryRow);
      if (fresh) body.replaceChildren(...rows);
      else body.append(...rows);
      shown = (fresh ? 0 : shown) + rows.length;
      next = nextPage(res.headers);
      say();
    });
  const first = () => {
    const query = new URLSearchParams({ limit: String(PAGE) });
    for (const [name, f] of Object.entries(filters)) if (f.value()) query.set(name, f.value());
    return load(`/audit?${query}`, true);
  };
  const older = button('Older entries', () => (next === null ? undefined : load(next, false)), { kind: 'secondary' });
  older.hidden = true;

  let typing = /** @type {ReturnType<typeof setTimeout> | undefined} */ (undefined);
  for (const f of Object.values(filters)) {
    f.input.addEventListener('input', () => {
      clearTimeout(typing);
      typing = setTimeout(first, TYPING_PAUSE_MS);
    });
  }
  const form = h(
    'form',
    { class: 'row', role: 'search', 'aria-label': 'Filter the audit log' },
    Object.values(filters).map((f) => f.wrap),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(typing);
    void first();
  });
  main.replaceChildren(
    h('h1', {}, 'Audit log'),
    form,
    auditVerifyControl(),
    errors,
    status,
    h('div', { class: 'scroll-x' }, table(['When', 'Actor', 'Action', 'Target', 'Vendors', 'Change'], body)),
    older,
  );
  await first();
}
