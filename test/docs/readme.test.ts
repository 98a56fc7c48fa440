/**
 * The README and the guides under docs/ do not point at what is not there: every relative link
 * resolves to a file or folder of the repository and every anchor to a heading of its page,
 * every `*.md` path they name exists, every `npm run <script>` they show is a script of
 * package.json, and every script that runs a file of the repository names one that exists. The
 * README stays a front page (200 lines at most) and each guide opens with its contents.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { anchors, readPage, REPOSITORY_ROOT as ROOT } from '../support/markdown';

/** The README and every guide (docs/spec is the product spec, copied as it is). */
const PAGES = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const GUIDES = ['docs/vendor-guide.md', 'docs/admin-guide.md', 'docs/operations.md', 'docs/deployment.md', 'docs/performance.md', 'docs/contract.md'];
const SCRIPTS = (JSON.parse(readPage('package.json')) as { scripts: Record<string, string> }).scripts;
const README_MAX_LINES = 200;

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target);
const linkTargets = (page: string): string[] => [...readPage(page).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((t) => !isExternal(t));
/** Every `something.md` the page names, in a link, in inline code or in prose; web addresses aside. */
const namedMarkdownPaths = (page: string): string[] =>
  [
    ...readPage(page)
      .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '')
      .matchAll(/(?<![\w./-])((?:\.{1,2}\/)*[\w-]+(?:\/[\w.-]+)*\.md)\b/g),
  ].map((m) => m[1] as string);
/** A named path resolves from the page's folder (links) or from the repository root (`docs/x.md` in prose). */
const resolves = (page: string, target: string): boolean =>
  existsSync(path.resolve(ROOT, path.dirname(page), target)) || existsSync(path.resolve(ROOT, target));
const npmScripts = (page: string): string[] => [...readPage(page).matchAll(/npm run (?:-s )?([a-z][\w:-]*)/g)].map((m) => m[1] as string);
/** Links with an anchor into a Markdown page: `#x` on the same page, `page.md#x` on another. */
const anchorLinks = (page: string): Array<{ file: string; anchor: string }> =>
  linkTargets(page)
    .filter((t) => t.includes('#') && (t.startsWith('#') || t.split('#')[0]?.endsWith('.md')))
    .map((t) => {
      const [file, anchor] = t.split('#') as [string, string];
      return { file: file === '' ? page : path.relative(ROOT, path.resolve(ROOT, path.dirname(page), file)), anchor };
    });

describe('the README and the guides under docs/', () => {
  it('extract what the pages show, so that no check below passes on nothing', () => {
    expect(GUIDES.filter((guide) => !PAGES.includes(guide))).toEqual([]);
    expect(PAGES.flatMap(linkTargets).length).toBeGreaterThan(50);
    expect(PAGES.flatMap(namedMarkdownPaths).length).toBeGreaterThan(30);
    expect(PAGES.flatMap(anchorLinks).length).toBeGreaterThan(30);
    expect(PAGES.flatMap(npmScripts).length).toBeGreaterThan(20);
  });

  it(`keep the README a front page of at most ${README_MAX_LINES} lines`, () => {
    expect(readPage('README.md').split('\n').length - 1).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it.each(GUIDES)('%s opens with a table of contents naming its own sections', (guide) => {
    const text = readPage(guide);
    const contents = /^Contents:\n\n((?:\s*- \[[^\]]+\]\(#[^)]+\)\n)+)/m.exec(text);
    if (!contents) throw new Error(`${guide} has no "Contents:" list of its sections`);
    expect(text.indexOf('Contents:')).toBeLessThan(1200);
    const own = anchors(text);
    const listed = [...(contents[1] as string).matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1] as string);
    expect(listed.length).toBeGreaterThan(1);
    expect(listed.filter((anchor) => !own.has(anchor))).toEqual([]);
  });

  it.each(PAGES)('%s links only to files and folders that exist', (page) => {
    const missing = linkTargets(page)
      .filter((t) => !t.startsWith('#'))
      .filter((target) => !existsSync(path.resolve(ROOT, path.dirname(page), target.split('#')[0] as string)));
    expect(missing).toEqual([]);
  });

  it.each(PAGES)('%s names only Markdown files that exist', (page) => {
    expect(namedMarkdownPaths(page).filter((target) => !resolves(page, target))).toEqual([]);
  });

  it.each(PAGES)('%s links only to anchors that are headings of their page', (page) => {
    const broken = anchorLinks(page).filter(({ file, anchor }) => !existsSync(path.join(ROOT, file)) || !anchors(readPage(file)).has(anchor));
    expect(broken).toEqual([]);
  });

  it.each(PAGES)('%s names only npm scripts that package.json has', (page) => {
    expect(npmScripts(page).filter((name) => SCRIPTS[name] === undefined)).toEqual([]);
  });
});

describe('package.json scripts', () => {
  it('run only files that exist (dist/ is built)', () => {
    const files = Object.entries(SCRIPTS).flatMap(([name, command]) =>
      [...command.matchAll(/\b(?:tsx|node)\s+((?:src|test|bench)\/\S+\.ts)/g)].map((m) => ({ name, file: m[1] as string })),
    );
    expect(files.length).toBeGreaterThan(3);
    expect(files.filter(({ file }) => !existsSync(path.join(ROOT, file)))).toEqual([]);
  });
});
