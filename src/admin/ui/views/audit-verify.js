// @ts-check
// The Audit log screen's **Verify audit chain** button: asks the gateway to check the log's hash
// chain and signed checkpoints (`GET /v1/audit/verify`) and says what it found: intact in a
// status line, or a break, naming the first bad entry and why, as an alert.
import { button, h } from '../../../ui-kit/dom.js';
import { alertBox, attempt, tell } from '../../../ui-kit/forms.js';
import { api } from '../admin-client.js';

/**
 * @typedef {object} VerifyResult
 * @property {boolean} ok
 * @property {number} checked
 * @property {number} checkpoints
 * @property {string} head
 * @property {string} [firstBadId]
 * @property {string} [reason]
 */

/** The button and where its outcome shows; one element to place on the screen. */
export function auditVerifyControl() {
  const status = h('p', { role: 'status' });
  const broken = alertBox();
  const verify = async () => {
    tell(status, '', '');
    broken.textContent = '';
    run.disabled = true;
    await attempt(broken, async () => {
      /** @type {VerifyResult} */
      const result = (await api('GET', '/audit/verify')).data;
      if (result.ok) {
        tell(status, `Audit chain intact: ${result.checked} entries checked, ${result.checkpoints} signed checkpoints; head ${result.head.slice(0, 16)}…`);
      } else {
        broken.textContent = `Audit chain broken at entry ${result.firstBadId ?? '(none)'}: ${result.reason ?? ''}`;
      }
    });
    run.disabled = false;
  };
  const run = button('Verify audit chain', verify, { kind: 'secondary' });
  return h('div', { class: 'audit-verify' }, run, status, broken);
}
