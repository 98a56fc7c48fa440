/**
 * "Try it out" on the reference page calls the gateway that served the page, even when the
 * document's `servers` names the gateway by another URL (server.publicUrl behind a proxy, or the
 * listener's 127.0.0.1 where the browser wrote localhost): the page's CSP allows only its own
 * origin, so a call to the servers URL would be refused by the browser. Chromium, a real gateway.
 */
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';
import { chromiumForTests } from '../support/browser';

const { watched, newPage } = chromiumForTests();
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ server: { publicUrl: 'https://api.bank.example' } });
}, 30_000);
afterAll(async () => {
  await gateway?.stop();
});

it("sends Try it out to the page's own origin when servers names another, and the call succeeds with the example", async () => {
  const document = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as { servers: { url: string }[] };
  expect(document.servers).toEqual([expect.objectContaining({ url: 'https://api.bank.example' })]);

  const page = await newPage({ extraHTTPHeaders: { 'X-Vendor-Token': SANDBOX_KEYS.demo } });
  await page.goto(`${gateway.url}/docs#/accounts/getAccountsByAccountId`);
  const operation = page.locator('#operations-accounts-getAccountsByAccountId');
  await operation.getByRole('button', { name: 'Try it out' }).click();
  const answer = page.waitForResponse((response) => new URL(response.url()).pathname.startsWith('/accounts/'));
  await operation.getByRole('button', { name: 'Execute' }).click();
  const response = await answer;
  expect(new URL(response.url()).origin).toBe(gateway.url);
  expect(response.status()).toBe(200);
  expect(watched.problems).toEqual([]);
}, 60_000);
