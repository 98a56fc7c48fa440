/**
 * A real browser for the admin UI's tests: Debian's Chromium driven by playwright-core (never a
 * downloaded browser). `launchChromium` fails with the install command when Chromium is missing,
 * so a machine without it fails loudly rather than skipping. Pages record console errors, page
 * errors and every request that would leave loopback.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// The flags the machine's notes give: no sandbox (root), no GPU, nothing that phones home.
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}: apt-get install -y chromium (the admin UI tests drive a real browser)`);
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** What went wrong in a page: console errors, uncaught errors, requests off loopback. */
export interface PageWatch {
  readonly problems: string[];
}

function watch(page: Page, into: PageWatch): Page {
  page.on('console', (message) => {
    if (message.type() === 'error') into.problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (err) => into.problems.push(`page error: ${err.message}`));
  page.on('request', (request) => {
    const url = request.url();
    if (!/^(http:\/\/127\.0\.0\.1[:/]|data:|about:)/.test(url)) into.problems.push(`request off loopback: ${url}`);
  });
  return page;
}

export async function newWatchedPage(context: BrowserContext, into: PageWatch): Promise<Page> {
  return watch(await context.newPage(), into);
}

/** Opens the admin web UI (at `path`, the page's own hash route when given) and signs in with `token`. */
export async function signInAdmin(page: Page, adminPort: number, token: string, path = ''): Promise<void> {
  await page.goto(`http://127.0.0.1:${adminPort}/${path}`);
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Overview' }).waitFor();
}
