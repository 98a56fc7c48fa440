// @ts-check
// Asking first, before an action that takes access away (suspend, delete, revoke, an apply that
// removes): a modal native <dialog> with role="alertdialog", named by its question and described
// by what would be lost, with a **Confirm** button and a **Cancel** button. Focus moves into it (to
// Cancel, the harmless choice), Escape cancels, and focus returns to the button that opened it
// when that is still on the page. Shared by the admin console and the vendor portal. Reads
// nothing; sets only the dialog it adds to the page and removes again.
import { button, h } from './dom.js';

/** @typedef {import('./dom.js').Child} Child */

/**
 * @typedef {object} Question
 * @property {string} title the question, e.g. "Suspend vendor acme?"
 * @property {Array<Child | Node>} lost what would be lost: a string is a paragraph, a node is kept as it is
 * @property {Node[]} [fields] controls the answer needs (a rotation's overlap)
 * @property {string} [confirm] the confirming button's text; "Confirm" unless it must say more
 * @property {() => unknown} onConfirm runs after the dialog closed
 */

let asked = 0;

/**
 * Opens the question; nothing happens until Confirm, and nothing at all on Cancel or Escape.
 * @param {Question} question
 * @returns {HTMLDialogElement}
 */
export function askFirst({ title, lost, fields = [], confirm = 'Confirm', onConfirm }) {
  const id = `ask${++asked}`;
  const opener = document.activeElement;
  let confirmed = false;
  const cancel = button('Cancel', () => dialog.close(), { kind: 'secondary' });
  const dialog = h(
    'dialog',
    { role: 'alertdialog', class: 'confirm', 'aria-labelledby': `${id}-title`, 'aria-describedby': `${id}-lost` },
    h('h2', { id: `${id}-title` }, title),
    h(
      'div',
      { id: `${id}-lost` },
      lost.map((line) => (line instanceof Node ? line : h('p', {}, line))),
    ),
    fields,
    h(
      'div',
      { class: 'row' },
      button(
        confirm,
        () => {
          confirmed = true;
          dialog.close();
        },
        { kind: 'danger' },
      ),
      cancel,
    ),
  );
  // Cancel, Confirm and Escape all end here.
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (confirmed) void onConfirm();
    else if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
  });
  document.body.append(dialog);
  dialog.showModal();
  cancel.focus();
  return dialog;
}
