// @ts-check
// Forms of the gateway's browser UIs: labelled fields (the label's text is the accessible name
// the tests and the contract use), an alert for what went wrong (role="alert"), a status for what
// happened (role="status", so a screen reader says it too), and actions that clear both, run,
// refresh the view, then say what succeeded or show the failure. Reads and sets nothing but the
// elements it makes, and the one message carried to the next screen (`carryOver`).
import { ApiError } from './api.js';
import { button, h } from './dom.js';

/** @typedef {import('./dom.js').Child} Child */
/** @typedef {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} Control */
/**
 * @typedef {(work: () => Promise<unknown>) => (event?: Event) => Promise<void>} Act an action's handler, from
 *   `actions()`: when `work` resolves to a string, that is what the status says it did
 */

/**
 * @typedef {object} FieldOptions
 * @property {'input' | 'select' | 'textarea'} [tag]
 * @property {string} [type]
 * @property {boolean} [required]
 * @property {string} [placeholder]
 * @property {string | number} [value]
 * @property {string} [autocomplete]
 * @property {string[]} [options] a select's choices
 */

let fieldCounter = 0;

/**
 * A labelled control; the label's text is its accessible name.
 * @param {string} label
 * @param {FieldOptions} [options]
 * @returns {{ wrap: HTMLLabelElement, input: Control, value: () => string, clear: () => void }}
 */
export function field(label, options = {}) {
  const id = `f${++fieldCounter}`;
  const { tag = 'input', type = 'text', required, placeholder, value, autocomplete = 'off' } = options;
  /** @type {Control} */
  const input =
    tag === 'select'
      ? h(
          'select',
          { id },
          (options.options ?? []).map((o) => h('option', { value: o }, o)),
        )
      : h(tag, { id, type: tag === 'input' ? type : undefined, required, placeholder, value, autocomplete });
  return {
    wrap: h('label', { for: id }, label, input),
    input,
    value: () => input.value.trim(),
    clear: () => {
      input.value = '';
    },
  };
}

/** Where a view shows what went wrong. */
export const alertBox = () => h('div', { role: 'alert' });

/** Where a view says what happened: a live region, on the page before anything is said in it. */
export const statusBox = () => h('div', { role: 'status' });

/** @type {string} */
let carried = '';

/**
 * A message for the next screen's status (a vendor deleted, then the list of vendors).
 * @param {string} text
 */
export function carryOver(text) {
  carried = text;
}

/**
 * Says the message carried from the screen before, once.
 * @param {HTMLElement} notice
 */
export function tellCarried(notice) {
  if (carried) tell(notice, carried);
  carried = '';
}

/**
 * @param {HTMLElement} box
 * @param {unknown} err
 */
function showError(box, err) {
  box.textContent = err instanceof ApiError ? err.describe() : err instanceof Error ? err.message : String(err);
}

/**
 * Says what happened in a notice box.
 * @param {HTMLElement} notice
 * @param {string} text
 * @param {'notice' | 'muted' | ''} [style] '' for none
 */
export function tell(notice, text, style = 'notice') {
  notice.className = style;
  notice.textContent = text;
}

/**
 * Runs `work`, showing what went wrong in `box`.
 * @param {HTMLElement} box
 * @param {() => Promise<unknown>} work
 */
export async function attempt(box, work) {
  try {
    await work();
  } catch (err) {
    showError(box, err);
  }
}

/**
 * The actions of a view: each clears the last outcome, does its work, then `refresh`es the view
 * and says what it did in `notice`, unless the work said something there itself (filed for
 * approval); a failure lands in `errors`.
 * @param {{ errors: HTMLElement, notice?: HTMLElement, refresh: () => Promise<unknown> }} view
 * @returns {Act}
 */
export function actions({ errors, notice, refresh }) {
  return (work) => async (event) => {
    event?.preventDefault();
    errors.textContent = '';
    if (notice) tell(notice, '', '');
    await attempt(errors, async () => {
      const done = await work();
      await refresh();
      if (notice && typeof done === 'string' && !notice.textContent) tell(notice, done);
    });
  };
}

/**
 * An inline form submitting to `onsubmit` (which prevents the page load itself).
 * @param {(event: Event) => unknown} onsubmit
 * @param {...(Child | Child[])} children
 */
export const inlineForm = (onsubmit, ...children) => h('form', { class: 'inline', onsubmit }, ...children);

/**
 * A submit button.
 * @param {string} text
 * @param {'secondary'} [kind]
 */
export const submit = (text, kind) => h('button', { type: 'submit', class: kind }, text);

/**
 * A hidden form and the button that reveals it, focusing its first field.
 * @param {string} text
 * @param {HTMLFormElement} form
 * @param {Control} first
 */
export function revealing(text, form, first) {
  form.hidden = true;
  return button(text, () => {
    form.hidden = false;
    first.focus();
  });
}
