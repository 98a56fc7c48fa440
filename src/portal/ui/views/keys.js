// @ts-check
// The Keys screen: every key of the vendor (revoked ones too) with its prefix, user, creation,
// last use, expiry, certificate binding and status; **Rotate** opens a form under the key's row
// (**Overlap hours**, 24 by default, and **Rotate key**): a new key for the same user, binding and
// expiry, its secret shown once with a copy button, while the old key works until the overlap
// ends; **Revoke** asks first (**Confirm**) and the key stops working at once. Reads
// `GET /portal/api/keys`; writes `POST …/keys/{keyId}/rotate` and `DELETE …/keys/{keyId}`.
import { askFirst } from '../../ui-kit/confirm.js';
import { button, h } from '../../ui-kit/dom.js';
import { alertBox, field, statusBox, submit, tell } from '../../ui-kit/forms.js';
import { when } from '../../ui-kit/format.js';
import { row, table } from '../../ui-kit/tables.js';
import { apiField, clearProblems, showProblems } from '../field-problems.js';
import { api, seg } from '../portal-client.js';
import { time } from '../show.js';

/** @typedef {import('../types.js').Key} Key */
/** @typedef {import('../types.js').Rotation} Rotation */

const HEADERS = ['Prefix', 'User', 'Created', 'Last used', 'Expires', 'Certificate', 'Status', 'Actions'];
const DEFAULT_OVERLAP_HOURS = 24;
const MAX_OVERLAP_HOURS = 168;

/**
 * What a key's status column says: an active key past its expiry no longer works.
 * @param {Key} k
 */
const statusOf = (k) => (k.status === 'active' && k.expiresAt && Date.parse(k.expiresAt) <= Date.now() ? 'expired' : k.status);

/**
 * Usable keys first, then the newest.
 * @param {Key} a
 * @param {Key} b
 */
const byUse = (a, b) => Number(statusOf(b) === 'active') - Number(statusOf(a) === 'active') || (b.createdAt ?? '').localeCompare(a.createdAt ?? '');

/**
 * The certificate binding: the thumbprints a key's calls must present, shortened (whole on hover).
 * @param {Key} k
 */
function binding(k) {
  const prints = k.certificateThumbprints ?? [];
  if (prints.length === 0) return h('span', { class: 'muted' }, 'none');
  return prints.map((p) => h('code', { class: 'print', title: p }, p.length > 16 ? `${p.slice(0, 16)}…` : p));
}

/** @param {import('../portal-client.js').ViewContext} view */
export async function keysView({ main }) {
  const errors = alertBox();
  const notice = statusBox();
  // Where a new key's secret shows, this once; `data-key-id` names its key.
  const secretBox = h('section', { class: 'secret-box', 'aria-label': 'New key secret', hidden: true });
  const body = h('tbody');
  const grid = table(HEADERS, body);
  /** The rotation form's row, when one is open. */
  let rotating = /** @type {HTMLTableRowElement | null} */ (null);

  const closeRotation = () => {
    rotating?.remove();
    rotating = null;
  };

  const load = async () => {
    const keys = /** @type {Key[]} */ ((await api('GET', '/keys')).data);
    closeRotation();
    body.replaceChildren(
      ...(keys.length === 0 ? [row(h('td', { colspan: HEADERS.length, class: 'muted' }, 'No keys yet.'))] : [...keys].sort(byUse).map(keyRow)),
    );
  };

  /**
   * @param {Rotation} rotation
   */
  function showSecret({ key, previous }) {
    secretBox.hidden = false;
    secretBox.dataset.keyId = key.id;
    const copied = statusBox();
    secretBox.replaceChildren(
      h('h2', {}, `New key ${key.prefix}`),
      h(
        'p',
        { class: 'warning' },
        'Its secret is shown this once: copy it now into the place your application keeps secrets. It cannot be shown again; if it is lost, rotate again.',
      ),
      h('p', { class: 'secret' }, key.secret),
      h(
        'p',
        {},
        `The old key ${previous.prefix} keeps working until `,
        time(previous.expiresAt, 'it expires'),
        ', then stops: move your application to the new key before then.',
      ),
      h(
        'div',
        { class: 'row' },
        button('Copy', () =>
          navigator.clipboard.writeText(key.secret).then(
            () => tell(copied, 'Copied.', 'muted'),
            () => tell(copied, 'The browser did not allow copying: select the secret and copy it.', 'muted'),
          ),
        ),
        button('Done', hideSecret, { kind: 'secondary' }),
      ),
      copied,
    );
  }

  function hideSecret() {
    secretBox.hidden = true;
    secretBox.replaceChildren();
    delete secretBox.dataset.keyId;
  }

  /**
   * The rotation form, in a row under the key's own.
   * @param {Key} k
   * @param {HTMLTableRowElement} keyRowEl
   * @param {HTMLButtonElement} opener
   */
  function openRotation(k, keyRowEl, opener) {
    closeRotation();
    const overlap = apiField(field('Overlap hours', { type: 'number', value: DEFAULT_OVERLAP_HOURS, required: true }), 'overlapHours');
    Object.assign(overlap.input, { min: '0', max: String(MAX_OVERLAP_HOURS), step: '1' });
    const general = alertBox();
    const cancel = () => {
      closeRotation();
      opener.focus();
    };
    const form = h(
      'form',
      {
        class: 'rotate',
        'aria-label': `Rotate key ${k.prefix}`,
        onsubmit: async (event) => {
          event.preventDefault();
          clearProblems(general, [overlap]);
          tell(notice, '', '');
          try {
            const res = await api('POST', `/keys/${seg(k.id)}/rotate`, { overlapHours: Number(overlap.value()) });
            const rotation = /** @type {Rotation} */ (res.data);
            await load();
            showSecret(rotation);
            tell(
              notice,
              `Rotated key ${k.prefix}: the new key ${rotation.key.prefix} works now; ${k.prefix} until ${when(rotation.previous.expiresAt, 'it expires')}.`,
            );
            secretBox.querySelector('button')?.focus();
          } catch (err) {
            (showProblems(err, general, [overlap])?.input ?? overlap.input).focus();
          }
        },
        onkeydown: (event) => {
          if (/** @type {KeyboardEvent} */ (event).key === 'Escape') cancel();
        },
      },
      h(
        'p',
        {},
        `A new key for user ${k.userId} replaces ${k.prefix}, with the same certificate binding and expiry; ${k.prefix} keeps working for the overlap (0–${MAX_OVERLAP_HOURS} hours), then stops.`,
      ),
      h('div', { class: 'row' }, overlap.wrap, submit('Rotate key'), button('Cancel', cancel, { kind: 'secondary' })),
      general,
    );
    rotating = h('tr', { class: 'rotating' }, h('td', { colspan: HEADERS.length }, form));
    keyRowEl.after(rotating);
    overlap.input.focus();
  }

  /**
   * @param {Key} k
   */
  function confirmRevoke(k) {
    askFirst({
      title: `Revoke key ${k.prefix}?`,
      lost: [`Key ${k.prefix} of user ${k.userId} stops working at once: its calls are refused (401). Last used: ${when(k.lastUsedAt, 'never')}.`],
      onConfirm: async () => {
        errors.textContent = '';
        tell(notice, '', '');
        try {
          await api('DELETE', `/keys/${seg(k.id)}`);
          // The secret of a key that no longer works has no business on the page.
          if (secretBox.dataset.keyId === k.id) hideSecret();
          await load();
          tell(notice, `Revoked key ${k.prefix}: it no longer works.`);
        } catch (err) {
          showProblems(err, errors, []);
        }
        grid.focus();
      },
    });
  }

  let described = 0;
  /** @param {Key} k */
  function keyRow(k) {
    const prefixId = `key-prefix-${++described}`;
    const status = statusOf(k);
    const actions = h('td', { class: 'actions' });
    const tr = row(
      h('td', {}, h('code', { id: prefixId }, k.prefix)),
      k.userId,
      time(k.createdAt),
      time(k.lastUsedAt, 'never'),
      time(k.expiresAt, 'never'),
      h('td', {}, binding(k)),
      h('td', { class: `status-${status}` }, status),
      actions,
    );
    if (status === 'active') {
      // Each button's name is the contract's word; the key it acts on is its description.
      const rotate = h('button', { type: 'button', class: 'secondary', 'aria-describedby': prefixId }, 'Rotate');
      rotate.addEventListener('click', () => openRotation(k, tr, rotate));
      const revoke = h('button', { type: 'button', class: 'danger', 'aria-describedby': prefixId }, 'Revoke');
      revoke.addEventListener('click', () => confirmRevoke(k));
      actions.append(rotate, ' ', revoke);
    }
    return tr;
  }

  const refresh = async () => {
    errors.textContent = '';
    try {
      await load();
    } catch (err) {
      showProblems(err, errors, []);
    }
  };
  main.replaceChildren(
    h('div', { class: 'heading' }, h('h1', {}, 'Keys'), button('Refresh', refresh, { kind: 'secondary' })),
    h('p', { class: 'muted' }, 'Your API keys. A key’s secret is shown only when the key is made; rotate a key to replace it without downtime.'),
    errors,
    notice,
    secretBox,
    grid,
  );
  await refresh();
}
