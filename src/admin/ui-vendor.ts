/**
 * The third-party browser files the admin web UI uses, served from the gateway itself under
 * `/ui-vendor/` (the strict CSP allows nothing from elsewhere, and no CDN is asked): an allow-list
 * from public file name to a file of an installed package, resolved with `require.resolve` and
 * read once at start, so nothing else of node_modules can be asked for.
 *
 * Reads those files; sets nothing. No token is needed: they are public library code.
 */
import { readFileSync } from 'node:fs';
import type { Router } from 'express';

/** Public name under `/ui-vendor/` → the package file it is. */
const UI_VENDOR_FILES: Readonly<Record<string, string>> = {
  // uPlot (MIT): the traffic charts (admin/ui/views/traffic-chart.js).
  'uplot.esm.js': 'uplot/dist/uPlot.esm.js',
  'uplot.min.css': 'uplot/dist/uPlot.min.css',
};

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export function registerUiVendor(app: Router): void {
  for (const [name, file] of Object.entries(UI_VENDOR_FILES)) {
    const body = readFileSync(require.resolve(file));
    const type = TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream';
    app.get(`/ui-vendor/${name}`, (_req, res) => {
      res.setHeader('Cache-Control', 'no-cache');
      res.type(type).send(body);
    });
  }
}
