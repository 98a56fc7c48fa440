/**
 * "Try it out" on the API reference page, as a vendor developer meets it on day one: Debian's
 * Chromium (playwright-core) opens `/docs` of a fresh sandbox gateway, authorizes with the demo key
 * in Swagger UI's Authorize dialog, then, for one operation of each tag and every money movement
 * (receipts and the bank-account add, verification and update), clicks "Try it out" and "Execute"
 * without touching a pre-filled value and reads the status the page shows: each must be 2xx. So
 * the document's examples are held to what the sandbox answers, through the page that shows them.
 *
 * One browser, one page, operations one after another (the bank-account code is sent before the
 * add that redeems it). Every tag's list is collapsed first and each operation and its tag closed
 * after use, as a reader looking at one operation would: with all 101 open, Swagger UI takes
 * seconds to redraw the page at each click.
 */
import type { Page } from 'playwright-core';
import { chromiumForTests } from '../support/browser';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';

interface Operation {
  readonly operationId: string;
  readonly apiId: string;
  readonly method: string;
  readonly tags: readonly string[];
  readonly pathParameters: number;
}

interface OpenApiOperation {
  operationId: string;
  'x-api-id': string;
  tags?: string[];
  parameters?: Array<{ in?: string }>;
}

const { watched, newPage } = chromiumForTests();
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
}, 30_000);
afterAll(async () => {
  await gateway?.stop();
});

const MONEY_MOVEMENT = /^(POSTapi\/transaction\/|POSTbankaccounts\/|PUTbankaccounts\/)/;
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/** The document's operations, in its order. */
function operationsOf(document: { paths: Record<string, Record<string, unknown>> }): Operation[] {
  return Object.values(document.paths).flatMap((item) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, raw]) => {
        const op = raw as OpenApiOperation;
        const inPath = [...((item.parameters as OpenApiOperation['parameters']) ?? []), ...(op.parameters ?? [])].filter((p) => p.in === 'path');
        return { operationId: op.operationId, apiId: op['x-api-id'], method, tags: op.tags ?? [], pathParameters: inPath.length };
      }),
  );
}

/**
 * Every money movement, the verification (which sends the code) first, then for each tag not yet
 * covered one read: the first GET that names a record by path (its example must be a record the
 * sandbox holds), else the tag's first GET.
 */
function operationsToTry(all: readonly Operation[]): Operation[] {
  const money = all.filter((op) => MONEY_MOVEMENT.test(op.apiId));
  money.sort((a, b) => Number(!a.apiId.includes('verification')) - Number(!b.apiId.includes('verification')));
  const covered = new Set(money.flatMap((op) => op.tags));
  const reads: Operation[] = [];
  for (const tag of new Set(all.flatMap((op) => op.tags))) {
    if (covered.has(tag)) continue;
    const gets = all.filter((op) => op.method === 'get' && op.tags.includes(tag));
    const chosen = gets.find((op) => op.pathParameters > 0) ?? gets[0];
    if (chosen) {
      reads.push(chosen);
      chosen.tags.forEach((t) => covered.add(t));
    }
  }
  return [...reads, ...money];
}

/** Fills every form of the Authorize dialog (one per security scheme) with the key and applies it, then closes it. */
async function authorize(page: Page, key: string): Promise<void> {
  await page.locator('.scheme-container .btn.authorize').click();
  const forms = page.locator('.modal-ux form');
  await forms.first().waitFor();
  for (let i = 0; i < (await forms.count()); i++) {
    const form = forms.nth(i);
    await form.locator('input').fill(key);
    await form.getByRole('button', { name: 'Apply credentials' }).click();
    await form.getByRole('button', { name: 'Remove authorization' }).waitFor();
  }
  await page.locator('.modal-ux .btn-done').first().click();
  await page.locator('.modal-ux').waitFor({ state: 'detached' });
}

/** Collapses every tag's list of operations, as a reader does to see one at a time (the page redraws far faster). */
async function collapseTags(page: Page): Promise<void> {
  const headers = page.locator('.opblock-tag');
  for (let i = 0; i < (await headers.count()); i++) await headers.nth(i).click();
  await page.locator('.opblock').first().waitFor({ state: 'detached' });
}

/** Opens the operation's tag and the operation, tries it as pre-filled, reads the status shown, and closes both again. */
async function tryItOut(page: Page, op: Operation): Promise<string> {
  const tag = page.locator(`.opblock-tag[data-tag="${op.tags[0] ?? 'default'}"]`);
  const block = page.locator(`.opblock[id^="operations-"][id$="-${op.operationId}"]`);
  await tag.click();
  await block.locator('.opblock-summary-control').click();
  await block.locator('.try-out__btn').click();
  await block.locator('.btn.execute').click();
  const status = block.locator('.live-responses-table tbody .response-col_status').first();
  const refused = block.locator('.parameters .invalid, .body-param .invalid, .validation-errors').first();
  // Swagger UI sends nothing when a required value is empty; it marks the field instead.
  await status.or(refused).waitFor({ timeout: 15_000 });
  const shown = (await status.isVisible()) ? (await status.innerText()).trim() : 'not sent: a required value is empty';
  await block.locator('.opblock-summary-control').click();
  await block.locator('.opblock-body').waitFor({ state: 'detached' });
  await tag.click();
  await block.waitFor({ state: 'detached' });
  return shown;
}

describe('"Try it out" on /docs with the demo key, values as pre-filled', () => {
  it('answers 2xx for one operation of each tag and every money movement', async () => {
    const startedAt = performance.now();
    const document = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const toTry = operationsToTry(operationsOf(document));
    const tags = new Set(operationsOf(document).flatMap((op) => op.tags));
    expect(new Set(toTry.flatMap((op) => op.tags))).toEqual(tags);
    expect(toTry.filter((op) => MONEY_MOVEMENT.test(op.apiId)).length).toBeGreaterThanOrEqual(6);

    const page = await newPage();
    await page.goto(`${gateway.url}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 15_000 });
    await authorize(page, SANDBOX_KEYS.demo);
    await collapseTags(page);
    const shown: Array<{ operation: string; status: string }> = [];
    for (const op of toTry) shown.push({ operation: `${op.apiId} (${op.operationId})`, status: await tryItOut(page, op) });
    const failing = shown.filter(({ status }) => !/^2\d\d\b/.test(status));
    console.info(
      `Try it out: ${shown.length - failing.length} of ${shown.length} operations 2xx in ${Math.round(performance.now() - startedAt)} ms` +
        (failing.length ? `; not 2xx:\n${failing.map(({ operation, status }) => `  ${operation}: ${status}`).join('\n')}` : ''),
    );
    expect(failing).toEqual([]);
    // A refusal is the page's answer, not a browser error: nothing failed to load, nothing left loopback.
    expect(watched.problems.filter((p) => !/status of 4\d\d/.test(p))).toEqual([]);
  }, 300_000);
});
