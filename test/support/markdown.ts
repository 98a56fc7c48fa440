/**
 * Reading the repository's Markdown pages the way GitHub renders them, for the tests that hold
 * the docs to the code: the anchors a page's headings get, and one section's text (so a test can
 * run the commands a guide shows). Reads only the files it is given; sets nothing.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const REPOSITORY_ROOT = path.resolve(__dirname, '../..');

export function readPage(page: string): string {
  return readFileSync(path.join(REPOSITORY_ROOT, page), 'utf8');
}

interface Heading {
  readonly level: number;
  readonly text: string;
  /** Index of the heading line's first character in the page. */
  readonly at: number;
}

/** The page's headings, skipping `#` lines inside fenced code (shell comments are no headings). */
export function headings(markdown: string): Heading[] {
  const found: Heading[] = [];
  let inFence = false;
  let at = 0;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    const match = inFence ? null : /^(#{1,6}) (.+)$/.exec(line);
    if (match) found.push({ level: (match[1] as string).length, text: (match[2] as string).trim(), at });
    at += line.length + 1;
  }
  return found;
}

/**
 * GitHub's anchor for a heading: lower case, punctuation dropped (backticks, brackets, dots,
 * colons), spaces to hyphens; a repeated heading gets `-1`, `-2`.
 */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const { text } of headings(markdown)) {
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** The text under the heading named `title` up to the next heading of its level or above. */
export function section(markdown: string, title: string): string {
  const all = headings(markdown);
  const index = all.findIndex((heading) => heading.text === title);
  const start = all[index];
  if (!start) throw new Error(`no heading "${title}"`);
  const next = all.slice(index + 1).find((heading) => heading.level <= start.level);
  return markdown.slice(start.at, next?.at ?? markdown.length);
}
