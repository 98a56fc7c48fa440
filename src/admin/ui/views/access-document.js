// @ts-check
// The Access document screen: the live document as YAML to edit, Reload, Dry run (the diff) and
// Apply with `If-Match` on the version it was loaded at (`GET`/`PUT /v1/access`). An Apply that
// would take access away (a vendor, key, licence, user or permission removed, a vendor suspended,
// a key revoked, a pattern changed) asks first, listing each removal from a dry run's diff.
import { askFirst } from '../../../ui-kit/confirm.js';
import { button, h } from '../../../ui-kit/dom.js';
import { alertBox, attempt, field, statusBox, tell } from '../../../ui-kit/forms.js';
import { api, filedText } from '../admin-client.js';

/** @typedef {{ added: string[], removed: string[], changed: Array<{ id: string, fields: Array<{ field: string, from?: unknown, to?: unknown }> }> }} ItemChanges */
/**
 * @typedef {object} AccessDiff the dry run's `diff` (docs/admin-guide.md, `PUT /v1/access`)
 * @property {boolean} identical
 * @property {{ removed: string[], changed: Array<{ id: string, fields: Array<{ field: string, from?: unknown, to?: unknown }>, keys: ItemChanges, licences: ItemChanges }> }} vendors
 * @property {{ removed: string[], changed: Array<{ id: string, permissions: ItemChanges }> }} users
 */

/**
 * What a write of the document did, in words.
 * @param {number} status
 * @param {{ id?: string, applied?: boolean, version?: string }} result
 * @param {boolean} dryRun
 */
function outcome(status, result, dryRun) {
  if (status === 202) return filedText(String(result.id));
  if (dryRun) return 'Dry run: nothing was changed.';
  return result.applied ? `Applied; now version ${result.version}.` : 'Already in force; nothing applied.';
}

/**
 * Each grant of access the change would take away, in words.
 * @param {AccessDiff | undefined} diff
 * @returns {string[]}
 */
function removals(diff) {
  if (!diff || diff.identical) return [];
  const lost = diff.vendors.removed.map((id) => `vendor ${id}, with its keys and licences`);
  for (const v of diff.vendors.changed) {
    if (v.fields.some((f) => f.field === 'status' && f.to === 'suspended')) lost.push(`vendor ${v.id} suspended`);
    lost.push(...v.keys.removed.map((id) => `key ${id} of vendor ${v.id}`));
    for (const k of v.keys.changed) if (k.fields.some((f) => f.field === 'status' && f.to !== 'active')) lost.push(`key ${k.id} of vendor ${v.id} revoked`);
    lost.push(...v.licences.removed.map((id) => `licence ${id} of vendor ${v.id}`));
    for (const l of v.licences.changed) if (l.fields.some((f) => f.field === 'api')) lost.push(`licence ${l.id} of vendor ${v.id} changes its pattern`);
  }
  lost.push(...diff.users.removed.map((id) => `user ${id}, with all their permissions`));
  for (const u of diff.users.changed) {
    lost.push(...u.permissions.removed.map((id) => `permission ${id} of user ${u.id}`));
    for (const p of u.permissions.changed) lost.push(`permission ${p.id} of user ${u.id} changes its pattern`);
  }
  return lost;
}

/** @param {import('../admin-client.js').ViewContext} view */
export async function accessDocumentView({ main }) {
  const errors = alertBox();
  const notice = statusBox();
  const diff = h('pre', { class: 'diff', hidden: true });
  const doc = field('Access document (YAML)', { tag: 'textarea' });
  const versionText = h('p', { class: 'muted' });
  let version = '';
  const load = async () => {
    const res = await api('GET', '/access', undefined, { accept: 'application/yaml' });
    version = (res.headers.get('etag') ?? '').replace(/"/g, '');
    doc.input.value = res.data;
    versionText.textContent = `Version ${version}.`;
  };
  const put = (/** @type {boolean} */ dryRun) =>
    api('PUT', `/access${dryRun ? '?dryRun=true' : ''}`, doc.input.value, {
      'content-type': 'application/yaml',
      'if-match': `"${version}"`,
    });
  const send = (/** @type {boolean} */ dryRun) =>
    attempt(errors, async () => {
      errors.textContent = '';
      tell(notice, '', '');
      const res = await put(dryRun);
      diff.hidden = false;
      diff.textContent = JSON.stringify(res.data.diff ?? res.data.preview, null, 2);
      if (!dryRun && res.status !== 202) await load();
      tell(notice, outcome(res.status, res.data, dryRun));
    });
  const apply = () =>
    attempt(errors, async () => {
      errors.textContent = '';
      const lost = removals((await put(true)).data.diff);
      if (lost.length === 0) return send(false);
      askFirst({
        title: `Apply and take away ${lost.length === 1 ? 'this grant' : `these ${lost.length} grants`} of access?`,
        lost: [
          'Applying this document removes, at once:',
          h(
            'ul',
            {},
            lost.map((line) => h('li', {}, line)),
          ),
        ],
        onConfirm: () => send(false),
      });
      return undefined;
    });
  main.replaceChildren(
    h('h1', {}, 'Access document'),
    h(
      'div',
      { class: 'row' },
      button('Reload', () => attempt(errors, load), { kind: 'secondary' }),
      button('Dry run', () => send(true), { kind: 'secondary' }),
      button('Apply', apply),
    ),
    versionText,
    errors,
    notice,
    diff,
    doc.wrap,
  );
  await attempt(errors, load);
}
