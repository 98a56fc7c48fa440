// @ts-check
// A problem answer's field errors (`errors[].field`) shown next to their fields: each field named
// by the API gets an alert (role="alert") right after it, bound to the field by
// aria-describedby and marked aria-invalid while it holds a message; what names no field shown
// here goes to the form's own alert. Reads the error it is given; sets the fields' alerts.
import { ApiError } from '../ui-kit/api.js';
import { h } from '../ui-kit/dom.js';

/** @typedef {ReturnType<typeof import('../ui-kit/forms.js').field>} Field */
/** @typedef {Omit<Field, 'wrap'> & { wrap: HTMLElement, name: string, problem: HTMLElement }} ApiField a field the API names `name` in its problems */

/**
 * The field with a place for its problem, right after it.
 * @param {Field} f
 * @param {string} name the API's name for it
 * @returns {ApiField}
 */
export function apiField(f, name) {
  const problem = h('div', { role: 'alert', class: 'field-problem', id: `${f.input.id}-problem` });
  return { ...f, name, problem, wrap: h('div', { class: 'field' }, f.wrap, problem) };
}

/**
 * Takes every message off the form.
 * @param {HTMLElement} general
 * @param {ApiField[]} fields
 */
export function clearProblems(general, fields) {
  general.textContent = '';
  for (const f of fields) {
    f.problem.textContent = '';
    f.input.removeAttribute('aria-invalid');
    f.input.removeAttribute('aria-describedby');
  }
}

/**
 * Shows what went wrong: each field error next to its field, the rest in `general`.
 * @param {unknown} err
 * @param {HTMLElement} general
 * @param {ApiField[]} fields
 * @returns {ApiField | undefined} the first field that holds a message (to move the focus to)
 */
export function showProblems(err, general, fields) {
  clearProblems(general, fields);
  if (!(err instanceof ApiError)) {
    general.textContent = err instanceof Error ? err.message : String(err);
    return undefined;
  }
  /** @type {ApiField | undefined} */
  let first;
  const unplaced = [];
  for (const e of err.problem?.errors ?? []) {
    const f = fields.find((one) => one.name === e.field);
    if (!f) {
      unplaced.push(`${e.field}: ${e.message}`);
      continue;
    }
    f.problem.textContent = f.problem.textContent ? `${f.problem.textContent}\n${e.message}` : e.message || err.message;
    f.input.setAttribute('aria-invalid', 'true');
    f.input.setAttribute('aria-describedby', f.problem.id);
    first ??= f;
  }
  if (!first) general.textContent = err.describe();
  else if (unplaced.length > 0) general.textContent = unplaced.join('\n');
  return first;
}
