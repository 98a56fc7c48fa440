/**
 * gatewayctl's human-readable output: plain-column tables and the access diff that `apply`
 * prints. (--json output is the API's body as it is, so it needs nothing here.)
 *
 * Pure functions: reads only its arguments, sets nothing, returns text ending in a newline.
 */
import type { AccessDiff, ItemChanges } from '../admin/operations/access-diff';

/** Plain columns, padded to the widest cell; `-` for an empty cell. */
export function table(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number | undefined>>): string {
  const cells = [headers, ...rows.map((row) => row.map((cell) => (cell === undefined || cell === '' ? '-' : String(cell))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  // The last column is not padded, so no line ends in spaces.
  const lines = cells.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  '));
  return `${lines.join('\n')}\n`;
}

const formatValue = (value: unknown): string => (value === undefined ? '(none)' : typeof value === 'object' ? JSON.stringify(value) : String(value));

function itemLines(kind: string, changes: ItemChanges, indent: string): string[] {
  return [
    ...changes.added.map((id) => `${indent}+ ${kind} ${id}`),
    ...changes.removed.map((id) => `${indent}- ${kind} ${id}`),
    ...changes.changed.map(
      (item) =>
        `${indent}~ ${kind} ${item.id}: ` +
        // A field without from/to is a secret's (a key's hash): say it changed, never show it.
        item.fields.map((f) => ('from' in f || 'to' in f ? `${f.field} ${formatValue(f.from)} -> ${formatValue(f.to)}` : `${f.field} changed`)).join(', '),
    ),
  ];
}

/** The diff as `+`/`-`/`~` lines, vendors (with their licences and keys) first, then users. */
export function formatDiff(diff: AccessDiff): string {
  if (diff.identical) return 'No changes.\n';
  const lines: string[] = [];
  lines.push(...diff.vendors.added.map((id) => `+ vendor ${id}`), ...diff.vendors.removed.map((id) => `- vendor ${id}`));
  for (const vendor of diff.vendors.changed) {
    lines.push(`~ vendor ${vendor.id}`);
    lines.push(...vendor.fields.map((f) => `    ${f.field}: ${formatValue(f.from)} -> ${formatValue(f.to)}`));
    lines.push(...itemLines('licence', vendor.licences, '    '), ...itemLines('key', vendor.keys, '    '));
  }
  lines.push(...diff.users.added.map((id) => `+ user ${id}`), ...diff.users.removed.map((id) => `- user ${id}`));
  for (const user of diff.users.changed) lines.push(`~ user ${user.id}`, ...itemLines('permission', user.permissions, '    '));
  return `${lines.join('\n')}\n`;
}
