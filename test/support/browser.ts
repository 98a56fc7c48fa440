/**
 * A real browser for the admin UI's tests: Debian's Chromium driven by playwright-core (never a
 * downloaded browser). `launchChromium` fails with the install command when Chromium is missing,
 * so a machine without it fails loudly rather than skipping. Pages record console errors, page
 * errors and every request that would leave loopback. `chromiumForTests` gives a test file its
 * browser, its hooks and its watched pages in one call.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

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
interface PageWatch {
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

/** What a test file drives Chromium with: see `chromiumForTests`. */
interface ChromiumForTests {
  /** The problems of every page `newPage` opened, kept across the file's tests: a test clears those it expects. */
  readonly watched: PageWatch;
  /** A new context of the file's browser, closed after the test. */
  readonly newContext: (options?: BrowserContextOptions) => Promise<BrowserContext>;
  /** A page reporting into `watched`, in a new context of its own closed after the test. */
  readonly newPage: (options?: BrowserContextOptions) => Promise<Page>;
}

/**
 * One Chromium for the calling test file (or `describe` block): registers there the hooks that
 * launch it before the first test (30 s allowed), close the contexts a test opened after each test
 * and close the browser after the last. Call it before the file's own hooks, so the browser is up
 * before they run and the contexts are closed before its own `afterEach` checks `watched`.
 */
export function chromiumForTests(): ChromiumForTests {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  const watched: PageWatch = { problems: [] };
  beforeAll(async () => {
    browser = await launchChromium();
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });
  const newContext = async (options?: BrowserContextOptions): Promise<BrowserContext> => {
    if (!browser) throw new Error('Chromium is not launched: call chromiumForTests() at the top of the file or describe block, not inside a test');
    const context = await browser.newContext(options);
    contexts.push(context);
    return context;
  };
  const newPage = async (options?: BrowserContextOptions): Promise<Page> => newWatchedPage(await newContext(options), watched);
  return { watched, newContext, newPage };
}

/** Opens the admin web UI (at `path`, the page's own hash route when given) and signs in with `token`. */
export async function signInAdmin(page: Page, adminPort: number, token: string, path = ''): Promise<void> {
  await page.goto(`http://127.0.0.1:${adminPort}/${path}`);
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Overview' }).waitFor();
}
