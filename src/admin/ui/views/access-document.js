// @ts-check
// The Access document screen: the live document as YAML to edit, Reload, Dry run (the diff) and
// Apply with `If-Match` on the version it was loaded at (`GET`/`PUT /v1/access`).
import { button, h } from '../../../ui-kit/dom.js';
import { alertBox, attempt, field, tell } from '../../../ui-kit/forms.js';
import { api, filedText } from '../admin-client.js';

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

/** @param {import('../admin-client.js').ViewContext} view */
export async function accessDocumentView({ main }) {
  const errors = alertBox();
  const notice = h('div');
  const diff = h('pre', { class: 'diff', hidden: true });
  const doc = field('Access document (YAML)', { tag: 'textarea' });
  let version = '';
  const load = async () => {
    const res = await api('GET', '/access', undefined, { accept: 'application/yaml' });
    version = (res.headers.get('etag') ?? '').replace(/"/g, '');
    doc.input.value = res.data;
    tell(notice, `Version ${version}.`, 'muted');
  };
  const send = (/** @type {boolean} */ dryRun) =>
    attempt(errors, async () => {
      errors.textContent = '';
      const res = await api('PUT', `/access${dryRun ? '?dryRun=true' : ''}`, doc.input.value, {
        'content-type': 'application/yaml',
        'if-match': `"${version}"`,
      });
      diff.hidden = false;
      diff.textContent = JSON.stringify(res.data.diff ?? res.data.preview, null, 2);
      tell(notice, outcome(res.status, res.data, dryRun));
      if (!dryRun && res.status !== 202) await load();
    });
  main.replaceChildren(
    h('h1', {}, 'Access document'),
    h(
      'div',
      { class: 'row' },
      button('Reload', () => attempt(errors, load), { kind: 'secondary' }),
      button('Dry run', () => send(true), { kind: 'secondary' }),
      button('Apply', () => send(false)),
    ),
    errors,
    notice,
    diff,
    doc.wrap,
  );
  await attempt(errors, load);
}
