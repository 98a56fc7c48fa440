/**
 * Day one from /openapi.json alone: the document converted by openapi-to-postmanv2 with examples
 * preferred (as a vendor's API client imports it: by the README's `convert`, folders by path, and
 * by `convertV2`, folders by tag, whose orders differ), run by newman in the collection's own order
 * against a fresh sandbox gateway with the demo key, answers 2xx for every request the demo key
 * may make. Requests for the operations its licences leave out (the resource POST, PUT and DELETE)
 * are sent too and must answer 403 `licence_required`: none of them reaches the sandbox, so the
 * run's own order can never depend on them.
 *
 * Which operations the demo key may make is asked of the gateway's own access index (loaded from
 * config/sandbox-access.yaml), matched to each request's `x-api-id`, not listed here.
 */
import { SANDBOX_KEYS, demoKeyMay, startTestGateway, type TestGateway } from '../support/gateway';
import { convertOpenApi, runCollection, type CollectionCall, type Conversion } from '../support/postman-run';

const described = (call: CollectionCall): string => `${call.method} ${call.template} → ${call.status} ${call.body.slice(0, 400)}`;

describe('a collection converted from /openapi.json, run with newman and the demo key', () => {
  // Each run against a fresh sandbox: codes are single-use, SMS sends limited, references posted once.
  let gateway: TestGateway;
  beforeEach(async () => {
    gateway = await startTestGateway();
  });
  afterEach(async () => {
    await gateway.stop();
  });

  it.each<Conversion>(['convert, folders by path', 'convertV2, folders by tag'])(
    '(%s) answers 2xx for every request the demo key may make, and 403 licence_required for the rest',
    async (conversion) => {
      const text = await (await fetch(`${gateway.url}/openapi.json`)).text();
      const document = JSON.parse(text) as { paths: Record<string, Record<string, { 'x-api-id': string }>> };
      const collection = await convertOpenApi(text, conversion);
      // servers names the gateway (here its listener), so the imported collection already points at it.
      expect(collection.variable).toEqual([expect.objectContaining({ key: 'baseUrl', value: gateway.url })]);
      const calls = await runCollection(collection, { baseUrl: gateway.url, apiKey: SANDBOX_KEYS.demo });

      const may = demoKeyMay(gateway);
      const apiIdOf = (call: CollectionCall): string => {
        const apiId = document.paths[call.template]?.[call.method.toLowerCase()]?.['x-api-id'];
        if (!apiId) throw new Error(`the collection calls ${call.method} ${call.template}, which the document does not list`);
        return apiId;
      };
      const allowed = calls.filter((call) => may(apiIdOf(call)));
      const refused = calls.filter((call) => !may(apiIdOf(call)));
      const failures = allowed.filter((call) => call.status < 200 || call.status > 299).map(described);
      const notRefused = refused.filter((call) => call.status !== 403 || !call.body.includes('"licence_required"')).map(described);

      // Every operation of the document is in the collection, once.
      const operations = Object.values(document.paths).reduce((n, methods) => n + Object.keys(methods).length, 0);
      expect(calls).toHaveLength(operations);
      expect(`${allowed.length - failures.length} of ${allowed.length} allowed requests answered 2xx:\n${failures.join('\n')}`).toBe(
        `${allowed.length} of ${allowed.length} allowed requests answered 2xx:\n`,
      );
      expect(notRefused).toEqual([]);
      expect(refused.length).toBeGreaterThan(0);
    },
    180_000,
  );
});
