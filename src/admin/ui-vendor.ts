/**
 * Third-party browser modules the admin web UI uses, served from this origin under
 * `/ui-vendor/` (the strict CSP allows scripts from 'self' only, and the page fetches nothing
 * from a CDN): an allow-list of files of installed packages, each read once at start from
 * node_modules, so an upgrade of the package is an upgrade of the page. Only the files named
 * here are served; a missing package fails the start, not a page load.
 *
 * microdiff draws the audit log's structural before/after diff; uPlot the traffic charts
 * (views/traffic-chart.js), with its stylesheet.
 *
 * Reads the listed files; sets nothing but the answers.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Router } from 'express';

interface VendoredFile {
  /** Where the page loads it. */
  readonly url: string;
  readonly packageName: string;
  /** The file inside the package: its browser (ES module) build. */
  readonly file: string;
}

const VENDORED: readonly VendoredFile[] = [
  { url: '/ui-vendor/microdiff.js', packageName: 'microdiff', file: 'dist/index.js' },
  { url: '/ui-vendor/uplot.esm.js', packageName: 'uplot', file: 'dist/uPlot.esm.js' },
  { url: '/ui-vendor/uplot.min.css', packageName: 'uplot', file: 'dist/uPlot.min.css' },
];

const TYPES: Readonly<Record<string, string>> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/**
 * The package's own directory: up from its entry point to its package.json (a package's
 * `exports` may hide both that file and its ES module build from `require.resolve`).
 */
function packageDir(name: string): string {
  let dir = path.dirname(require.resolve(name));
  while (!existsSync(path.join(dir, 'package.json')) || (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string }).name !== name) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the package directory of ${name}`);
    dir = parent;
  }
  return dir;
}

export function registerUiVendor(app: Router): void {
  for (const { url, packageName, file } of VENDORED) {
    const body = readFileSync(path.join(packageDir(packageName), file));
    const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
    app.get(url, (_req, res) => {
      res.setHeader('Cache-Control', 'no-cache');
      res.type(type).send(body);
    });
  }
}
