// @ts-check
// How the gateway's browser UIs write times and differences. Reads and sets nothing.
import { h } from './dom.js';

/**
 * A time in the browser's locale, or a dash for none.
 * @param {string | null | undefined} iso
 */
export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—');

/**
 * Lines of the JSON of before and after, marked added or removed where they differ.
 * @param {unknown} before
 * @param {unknown} after
 */
export function jsonDiff(before, after) {
  const a = JSON.stringify(before, null, 2)?.split('\n') ?? [];
  const b = JSON.stringify(after, null, 2)?.split('\n') ?? [];
  const kept = new Set(a.filter((line) => b.includes(line)));
  return h(
    'pre',
    { class: 'diff' },
    ...a.filter((line) => !kept.has(line)).map((line) => h('span', { class: 'removed' }, `- ${line}\n`)),
    ...b.map((line) => (kept.has(line) ? `  ${line}\n` : h('span', { class: 'added' }, `+ ${line}\n`))),
  );
}
