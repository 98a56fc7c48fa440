// @ts-check
// Before and after of a change, side by side: each as pretty JSON whose changed lines are marked
// (added, removed, changed: a sign and words, not colour alone), then the list of changes by
// path. The differences come from microdiff (a structural diff of the two values, served from
// this origin at /ui-vendor/microdiff.js), never from matching lines of text. Reads and sets
// nothing but the elements it makes.
import microdiff from '../ui-vendor/microdiff.js';
import { h } from './dom.js';

/** @typedef {'added' | 'removed' | 'changed'} Mark */
/** @typedef {(string | number)[]} Path */
/** @typedef {{ text: string, path: Path }} Line */

const SIGN = /** @type {const} */ ({ added: '+', removed: '−', changed: '~' });

/**
 * What microdiff compares: objects and arrays as they are; nothing as an empty object; anything
 * else as the one field `value`.
 * @param {unknown} value
 * @returns {Record<string, any> | any[]}
 */
const comparable = (value) =>
  value !== null && typeof value === 'object' ? /** @type {Record<string, any>} */ (value) : value === null || value === undefined ? {} : { value };

/** @param {Path} path */
const keyOf = (path) => JSON.stringify(path);

/**
 * A path as people read it: `licences[0].api`.
 * @param {Path} path
 */
export const pathText = (path) => path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('') || '(whole value)';

/**
 * Pretty JSON (two spaces, as JSON.stringify writes it), a line at a time, each with the path of
 * the value it shows.
 * @param {unknown} value
 * @param {Path} path
 * @param {string} indent
 * @param {string} label `"name": ` inside an object, '' elsewhere
 * @param {string} comma
 * @param {Line[]} out
 */
function jsonLines(value, path, indent, label, comma, out) {
  if (value !== null && typeof value === 'object') {
    const array = Array.isArray(value);
    const entries = array ? value.map((v, i) => /** @type {[number, unknown]} */ ([i, v])) : Object.entries(value).filter(([, v]) => v !== undefined);
    const [open, close] = array ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) {
      out.push({ text: `${indent}${label}${open}${close}${comma}`, path });
      return;
    }
    out.push({ text: `${indent}${label}${open}`, path });
    entries.forEach(([k, v], i) => jsonLines(v, [...path, k], `${indent}  `, array ? '' : `${JSON.stringify(k)}: `, i < entries.length - 1 ? ',' : '', out));
    out.push({ text: `${indent}${close}${comma}`, path });
    return;
  }
  out.push({ text: `${indent}${label}${JSON.stringify(value) ?? 'null'}${comma}`, path });
}

/**
 * The mark of a line: its own path's, or the nearest marked parent's (a removed object's lines
 * are all removed).
 * @param {Path} path
 * @param {Map<string, Mark>} marks
 */
function markOf(path, marks) {
  for (let n = path.length; n > 0; n--) {
    const mark = marks.get(keyOf(path.slice(0, n)));
    if (mark) return mark;
  }
  return null;
}

/**
 * One side: its title, and its JSON with each marked line signed and worded.
 * @param {string} title
 * @param {unknown} value
 * @param {Map<string, Mark>} marks
 */
function side(title, value, marks) {
  /** @type {Line[]} */
  const lines = [];
  jsonLines(comparable(value), [], '', '', '', lines);
  const shown = value === null || value === undefined ? [{ text: 'null', path: [] }] : lines;
  return h(
    'figure',
    { class: 'diff-side' },
    h('figcaption', {}, title),
    h(
      'pre',
      // Focusable: a long line scrolls sideways, and a keyboard must be able to scroll it.
      { class: 'diff', tabindex: '0' },
      shown.map(({ text, path }) => {
        const mark = markOf(path, marks);
        if (!mark) return `  ${text}\n`;
        // A block of its own (app.css): it ends its line without a newline.
        return h(
          'span',
          { class: `d-${mark}`, title: mark },
          h('span', { class: 'sr-only' }, `${mark}: `),
          h('span', { 'aria-hidden': 'true' }, `${SIGN[mark]} `),
          text,
        );
      }),
    ),
  );
}

/**
 * A value as one short line for the list of changes.
 * @param {unknown} value
 */
const brief = (value) => {
  const text = JSON.stringify(value) ?? 'null';
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
};

/**
 * Before and after side by side with the changed paths marked, then the changes by path.
 * @param {unknown} before
 * @param {unknown} after
 */
export function structuralDiff(before, after) {
  const changes = microdiff(comparable(before), comparable(after));
  /** @type {Map<string, Mark>} */
  const was = new Map();
  /** @type {Map<string, Mark>} */
  const now = new Map();
  for (const change of changes) {
    const key = keyOf(change.path);
    if (change.type === 'REMOVE') was.set(key, 'removed');
    else if (change.type === 'CREATE') now.set(key, 'added');
    else {
      was.set(key, 'changed');
      now.set(key, 'changed');
    }
  }
  const items = changes.map((change) => {
    const where = h('code', {}, pathText(change.path));
    if (change.type === 'CREATE') return h('li', { class: 'd-added' }, where, ` added: ${brief(change.value)}`);
    if (change.type === 'REMOVE') return h('li', { class: 'd-removed' }, where, ` removed: ${brief(change.oldValue)}`);
    return h('li', { class: 'd-changed' }, where, ` changed: ${brief(change.oldValue)} → ${brief(change.value)}`);
  });
  return h(
    'div',
    { class: 'structural-diff' },
    h('div', { class: 'diff-sides' }, side('Before', before, was), side('After', after, now)),
    h('p', { class: 'diff-summary' }, changes.length === 0 ? 'No differences.' : `${changes.length} ${changes.length === 1 ? 'change' : 'changes'} by path:`),
    items.length > 0 ? h('ul', { class: 'diff-changes' }, items) : null,
  );
}
