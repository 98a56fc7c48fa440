/**
 * The README and the guides under docs/ do not point at what is not there: every relative link
 * resolves to a file or folder of the repository, every `npm run <script>` they show is a script
 * of package.json, and every script that runs a file of the repository names one that exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
/** The README and every guide (docs/spec is the product spec, copied as it is). */
const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const SCRIPTS = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

function read(page: string): string {
  return readFileSync(path.join(ROOT, page), 'utf8');
}

describe('the README and the guides under docs/', () => {
  it.each(PAGES)('%s links only to files and folders that exist', (page) => {
    const targets = [...read(page).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#'));
    const missing = targets.filter((target) => !existsSync(path.resolve(ROOT, path.dirname(page), target.split('#')[0] as string)));
    expect(missing).toEqual([]);
  });

  it.each(PAGES)('%s names only npm scripts that package.json has', (page) => {
    const named = [...read(page).matchAll(/npm run (?:-s )?([a-z][\w:-]*)/g)].map((m) => m[1] as string);
    expect(named.filter((name) => SCRIPTS[name] === undefined)).toEqual([]);
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
