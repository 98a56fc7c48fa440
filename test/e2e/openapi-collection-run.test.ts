/**
 * Day one from /openapi.json alone: the document converted by openapi-to-postmanv2 with examples
 * preferred (as a vendor's API client imports it: by the README's `convert`, folders by path, and
 * by `convertV2`, folders by tag, whose orders differ), run by newman in the collection's own order
 * against a fresh sandbox gateway with the demo key, answers 2xx for every request the demo key
 * may make. Requests for the operations its licences leave out (the resource POST, PUT and DELETE)
 * are sent too and must answer 403 `licence_required`: none of them reaches the sandbox, so the
 * run's own order can never depend on them.
 *
 * Which operations the demo key may make is read from config/sandbox-access.yaml (its vendor's
 * licences and its user's permissions, matched to each request's `x-api-id`), not listed here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { compileApiPattern } from '../../src/access/access-index';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';
import { convertOpenApi, runCollection, type CollectionCall, type Conversion } from '../support/postman-run';

interface SandboxAccess {
  vendors: { id: string; licences: { api: string }[]; keys: { prefix: string; userId: string }[] }[];
  users: { id: string; permissions: { api: string }[] }[];
}

/** Whether the demo key may call an API id: a licence of its vendor and a permission of its user both match. */
function demoKeyMay(): (apiId: string) => boolean {
  const access = parse(readFileSync(path.resolve(__dirname, '../../config/sandbox-access.yaml'), 'utf8')) as SandboxAccess;
  const vendor = access.vendors.find((v) => v.keys.some((key) => SANDBOX_KEYS.demo.startsWith(key.prefix)));
  const userId = vendor?.keys.find((key) => SANDBOX_KEYS.demo.startsWith(key.prefix))?.userId;
  const user = access.users.find((u) => u.id === userId);
  if (!vendor || !user) throw new Error('the demo key is not in config/sandbox-access.yaml');
  const licensed = vendor.licences.map((l) => compileApiPattern(l.api));
  const permitted = user.permissions.map((p) => compileApiPattern(p.api));
  return (apiId) => licensed.some((match) => match(apiId)) && permitted.some((match) => match(apiId));
}

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

      const may = demoKeyMay();
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
