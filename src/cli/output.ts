/**
 * gatewayctl's human-readable output: plain-column tables and the access diff that `apply`
 * prints. (--json output is the API's body as it is, so it needs nothing here.)
 *
 * Pure functions: reads only its arguments, sets nothing, returns text ending in a newline
 * (`fieldInWords`: a line's words); but `endQuietlyWhenOutputCloses`, which watches stdout.
 */
import type { AccessDiff, ItemChanges } from '../admin/operations/access-diff';
import { ENTRY_WORDS } from '../access/model';

/**
 * A reader that stops early (`gatewayctl audit export | head -1`) closes the pipe: the next
 * write fails with EPIPE, which would crash with a stack trace. That is not a failure of the
 * command: everything the reader wanted was written, so the CLI ends at once, quietly, with 0.
 * Any other output error ends it with 1 and one line.
 */
export function endQuietlyWhenOutputCloses(stdout: NodeJS.EventEmitter, stderr: { write(text: string): unknown }, exit: (code: number) => void): void {
  stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') stderr.write(`error: cannot write the output: ${err.code ?? err.message}\n`);
    exit(err.code === 'EPIPE' ? 0 : 1);
  });
}

/**
 * A problem's field as words when it names a vendor or user of the access document:
 * `vendors[acme].licences[1].api` reads `vendor "acme" licence 2, api`. Other fields stay as they are.
 */
export function fieldInWords(field: string): string {
  const match = /^(vendors|users)\[([^\]]+)\](?:\.(licences|keys|permissions)\[(\d+)\])?(?:\.(.+))?$/.exec(field);
  if (!match) return field;
  const [, section, owner, list, index, rest] = match;
  const ownerWords = `${section === 'vendors' ? 'vendor' : 'user'} "${owner}"`;
  const entry = list === undefined ? '' : ` ${ENTRY_WORDS[list] ?? list} ${Number(index) + 1}`;
  return `${ownerWords}${entry}${rest === undefined ? '' : `, ${rest}`}`;
}

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

/** What a diff removes, one phrase each (`licence lic-1 of vendor acme`): what `apply` asks --prune for. */
export function removalsOf(diff: AccessDiff): string[] {
  const of = (kind: string, changes: ItemChanges, owner: string): string[] => changes.removed.map((id) => `${kind} ${id} of ${owner}`);
  return [
    ...diff.vendors.removed.map((id) => `vendor ${id} (with its keys and licences)`),
    ...diff.vendors.changed.flatMap((v) => [...of('key', v.keys, `vendor ${v.id}`), ...of('licence', v.licences, `vendor ${v.id}`)]),
    ...diff.users.removed.map((id) => `user ${id} (with their permissions)`),
    ...diff.users.changed.flatMap((u) => of('permission', u.permissions, `user ${u.id}`)),
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
