// @ts-check
// How the gateway's browser UIs write times and differences. Reads and sets nothing.
import { h } from './dom.js';

/**
 * A time in the browser's locale; for none, what none means where it is shown ("never" for an
 * expiry that does not come), a dash by default.
 * @param {string | null | undefined} iso
 * @param {string} [none]
 */
export const when = (iso, none = '—') => (iso ? new Date(iso).toLocaleString() : none);

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
