/**
 * The Postman collection written from the OpenAPI document: a v2.1 collection the Postman SDK
 * loads whole, holding only what the document says (its examples, its headers, its servers), with
 * the sandbox demo key only when the access document knows it, and served per public origin with
 * an ETag.
 */
import http from 'node:http';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import express from 'express';
import { createRequire } from 'node:module';
import { parse } from 'yaml';
import { AccessIndex } from '../access/access-index';
import { parseAccessDocumentInPlace } from '../access/model';
import { ROUTES } from '../catalogue/api-catalogue';
import { loadReceiptEnums } from '../contracts/enums';
import { createBodyContracts } from '../contracts/registry';
import { createForwardedResolver } from '../core-client/forwarded';
import { SANDBOX_DEMO_KEY } from '../sandbox/demo-key';
import { buildCollection, collectionFile, type CollectionKey } from './collection';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi';
import { publicFileRoutes } from './public-file';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The Postman SDK (postman-collection, newman's own), as far as these tests use it: its typings are not on the package's types path. */
interface LoadedCollection {
  readonly items: { all(): Array<{ readonly name: string }> };
  forEachItem(callback: (item: { readonly request: { readonly url: { getRemote(): string } } }) => void): void;
  readonly variables: { toObject(): Json };
  readonly auth?: { readonly type: string; parameters(): { toObject(): Json } };
  toJSON(): Json;
}
const { Collection } = createRequire(__filename)('postman-collection') as { Collection: new (definition: unknown) => LoadedCollection };

const contracts = createBodyContracts({ enums: loadReceiptEnums(path.resolve(__dirname, '../../config/receipt-enums.yaml')), adjustmentNotesRequired: false });
const documentWith = (receiptTokenHeader = 'X-Vendor-Token'): OpenApiDocument =>
  buildOpenApiDocument({ routes: ROUTES, contracts, version: '9.9.9', tokenHeader: 'X-Vendor-Token', receiptTokenHeader });
const doc = documentWith();
const operationCount = Object.values(doc.paths).reduce((count, methods) => count + Object.keys(methods).length, 0);

const sandboxAccess = (version = 1): AccessIndex => {
  const parsed = parseAccessDocumentInPlace(parse(readFileSync(path.resolve(__dirname, '../../config/sandbox-access.yaml'), 'utf8')));
  if (!parsed.success) throw new Error('config/sandbox-access.yaml does not parse');
  return AccessIndex.fromDocument(parsed.data, version);
};
/** The demo key as the gateway gives it to buildCollection in sandbox mode. */
function demoKey(index: AccessIndex): CollectionKey {
  const known = index.authenticate(SANDBOX_DEMO_KEY);
  if (!known.ok) throw new Error('the sandbox access document does not hold the demo key');
  return { token: SANDBOX_DEMO_KEY, mayCall: (apiId) => index.authorize(known.principal, known.vendor, apiId) === null };
}
const NO_KEY: CollectionKey = { token: null, mayCall: () => false };

/** Every request of the collection, with its folder. */
function requests(collection: Json): Array<{ folder: string; item: Json }> {
  return (collection.item as Json[]).flatMap((folder) => (folder.item as Json[]).map((item) => ({ folder: folder.name as string, item })));
}
const requestOf = (collection: Json, method: string, raw: string): Json => {
  const found = requests(collection).find(({ item }) => item.request.method === method && item.request.url.raw.split('?')[0] === `{{baseUrl}}${raw}`);
  if (!found) throw new Error(`no ${method} ${raw} in the collection`);
  return found.item.request as Json;
};

describe('the Postman collection', () => {
  const sandbox = buildCollection(doc, 'http://127.0.0.1:8080', demoKey(sandboxAccess()));

  it('is a Postman v2.1 collection the Postman SDK loads whole: folders, requests, URLs, variables and auth', () => {
    expect(sandbox.info).toMatchObject({ name: expect.any(String), schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' });
    const loaded = new Collection(sandbox);
    const folders = loaded.items.all();
    expect(folders.map((folder) => folder.name)).toEqual((sandbox.item as Json[]).map((folder) => folder.name));
    const items: Array<{ readonly request: { readonly url: { getRemote(): string } } }> = [];
    loaded.forEachItem((item) => items.push(item));
    expect(items).toHaveLength(requests(sandbox).length);
    expect(loaded.variables.toObject()).toEqual({ baseUrl: 'http://127.0.0.1:8080', vendorToken: SANDBOX_DEMO_KEY, bankAccountId: '' });
    expect(loaded.auth?.type).toBe('apikey');
    expect(loaded.auth?.parameters().toObject()).toEqual({ key: 'X-Vendor-Token', value: '{{vendorToken}}', in: 'header' });
    // What the SDK read back is what was written: no member of ours was dropped as unknown.
    const back = loaded.toJSON();
    expect(requests(back).map(({ item }) => [item.request.method, item.request.url])).toEqual(
      requests(sandbox).map(({ item }) => [item.request.method, expect.objectContaining({ path: item.request.url.path, host: item.request.url.host })]),
    );
    for (const item of items) expect(item.request.url.getRemote()).toMatch(/^\{\{baseUrl\}\}$/);
  });

  it('in sandbox mode carries the demo key and exactly the operations the sandbox access document grants it, one folder per tag', () => {
    const index = sandboxAccess();
    const { mayCall } = demoKey(index);
    const granted = Object.values(doc.paths).flatMap((methods) => Object.values(methods).filter((op) => mayCall(String(op['x-api-id']))));
    const listed = requests(sandbox);
    expect(listed).toHaveLength(granted.length);
    expect(listed.length).toBeLessThan(operationCount);
    expect(listed.map(({ item }) => item.request.method).filter((m) => m === 'DELETE')).toEqual([]);
    for (const { folder, item } of listed) {
      const op = granted.find((o) => o.summary === item.name) as Json;
      expect(op.tags[0]).toBe(folder);
    }
    // The readonly partner's key is never the collection's.
    expect(JSON.stringify(sandbox)).not.toContain('cbk_VOrQ');
  });

  it('with a real core (no sandbox key) carries no key at all and every operation', () => {
    const real = buildCollection(doc, 'https://api.bank.example', NO_KEY);
    expect(requests(real)).toHaveLength(operationCount);
    expect(real.variable).toContainEqual({ key: 'vendorToken', value: '', type: 'string' });
    expect(JSON.stringify(real)).not.toMatch(/cbk_/);
  });

  it('fills parameters and bodies from the document examples only, placeholders where it has none', () => {
    const withExamples = JSON.parse(JSON.stringify(doc)) as Json;
    const get = withExamples.paths['/accounts/{accountId}'].get;
    get.parameters[0].example = 50001;
    const search = withExamples.paths['/accounts'].get;
    search.parameters.find((p: Json) => p.name === 'sort').schema = { type: 'string', enum: ['id', 'balance'] };
    search.parameters.find((p: Json) => p.name === 'pageSize').example = 10;
    search.parameters.find((p: Json) => p.name === 'paged').schema.example = true;
    withExamples.paths['/api/transaction/savings/deposit'].post.requestBody.content['application/json'].example = {
      cuAccountID: 50001,
      amount: 25.1,
      externalRefNo: 'VND-1',
    };
    const collection = buildCollection(withExamples as OpenApiDocument, 'http://127.0.0.1:8080', demoKey(sandboxAccess()));

    expect(requestOf(collection, 'GET', '/accounts/:accountId').url.variable).toEqual([{ key: 'accountId', value: '50001' }]);
    const list = requestOf(collection, 'GET', '/accounts').url;
    expect(list.raw).toBe('{{baseUrl}}/accounts?sort=id&paged=true&pageSize=10');
    expect(list.query.map((q: Json) => [q.key, q.value, q.disabled ?? false])).toEqual([
      ['sort', 'id', false],
      ['ascending', '', true],
      ['paged', 'true', false],
      ['page', '', true],
      ['pageSize', '10', false],
    ]);
    const deposit = requestOf(collection, 'POST', '/api/transaction/savings/deposit');
    expect(JSON.parse(deposit.body.raw)).toEqual({ cuAccountID: 50001, amount: 25.1, externalRefNo: '{{$guid}}' });
    expect(deposit.header).toEqual(
      expect.arrayContaining([expect.objectContaining({ key: 'Idempotency-Key', value: '{{$guid}}' }), { key: 'Content-Type', value: 'application/json' }]),
    );
    // The served document as it stands: no example, a visible placeholder (never a made-up id) and an empty body.
    expect(requestOf(sandbox, 'GET', '/accounts/:accountId').url.variable).toEqual([{ key: 'accountId', value: '<accountId>' }]);
    expect(requestOf(sandbox, 'POST', '/api/transaction/savings/payment').body).toMatchObject({ mode: 'raw', raw: '{}' });
  });

  it('sends the verification before the add, keeps the created Id and feeds it to the read and update without an example', () => {
    const folder = (sandbox.item as Json[]).find((f) => f.name === 'bankaccounts') as Json;
    expect(folder.item.map((item: Json) => `${item.request.method} ${item.request.url.path.join('/')}`)).toEqual([
      'POST bankaccounts/verification',
      'POST bankaccounts/add',
      'GET bankaccounts/:id',
      'PUT bankaccounts/:id',
    ]);
    expect(folder.item[1].event[0]).toMatchObject({
      listen: 'test',
      script: { exec: expect.arrayContaining([expect.stringContaining("collectionVariables.set('bankAccountId'")]) },
    });
    for (const item of folder.item.slice(2)) expect(item.request.url.variable[0].value).toBe('{{bankAccountId}}');
    const withExample = JSON.parse(JSON.stringify(doc)) as Json;
    withExample.paths['/bankaccounts/{id}'].put.parameters[0].example = '7';
    const put = requestOf(buildCollection(withExample as OpenApiDocument, 'http://h', NO_KEY), 'PUT', '/bankaccounts/:id');
    expect(put.url.variable[0].value).toBe('7');
  });

  it("takes baseUrl from the document's absolute server, else the origin it is asked for, and sends the receipt header configured apart", () => {
    const apart = documentWith('X-Receipt-Token');
    const atOrigin = buildCollection(apart, 'http://10.0.0.5:8080/', NO_KEY) as Json;
    expect(atOrigin.variable[0]).toEqual({ key: 'baseUrl', value: 'http://10.0.0.5:8080', type: 'string' });
    expect(requestOf(atOrigin, 'POST', '/api/transaction/loan/reversal').header).toContainEqual(
      expect.objectContaining({ key: 'X-Receipt-Token', value: '{{vendorToken}}' }),
    );
    expect(requestOf(atOrigin, 'GET', '/accounts').header).toEqual([]);
    const served = { ...apart, servers: [{ url: 'https://api.bank.example/' }] } as OpenApiDocument;
    expect((buildCollection(served, 'http://10.0.0.5:8080', NO_KEY) as Json).variable[0].value).toBe('https://api.bank.example');
  });

  it('is served keyless per public origin, built once each, with an ETag that answers 304, and rebuilt when the access config changes', async () => {
    let index = sandboxAccess(1);
    const file = collectionFile({
      document: doc,
      origin: createForwardedResolver({ trustedProxies: ['127.0.0.1'], publicUrl: null }),
      sandboxKey: SANDBOX_DEMO_KEY,
      access: () => index,
    });
    const app = express();
    app.use(publicFileRoutes([['/docs/collection.json', file]]));
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const url = `http://127.0.0.1:${port}/docs/collection.json`;
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      const body = (await res.json()) as Json;
      expect(body.variable[0].value).toBe(`http://127.0.0.1:${port}`);
      const etag = res.headers.get('etag') as string;
      expect((await fetch(url, { headers: { 'If-None-Match': etag } })).status).toBe(304);
      // A trusted proxy's forwarded host is another origin: its own collection and validator.
      const proxied = await fetch(url, { headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.bank.example' } });
      expect(((await proxied.json()) as Json).variable[0].value).toBe('https://api.bank.example');
      expect(proxied.headers.get('etag')).not.toBe(etag);
      // Built once per origin: the same file object (and bytes) for the same origin.
      const req = { socket: { localAddress: '127.0.0.1', localPort: port, remoteAddress: '10.9.9.9' }, headers: {} } as unknown as http.IncomingMessage;
      expect(file(req)).toBe(file(req));
      // A new access config version without the demo key: the collection follows, and carries no key.
      index = AccessIndex.fromRecords({ ...sandboxAccess(2).records(), keys: [] }, 2);
      const unknownKey = await fetch(url);
      expect(unknownKey.headers.get('etag')).not.toBe(etag);
      const rebuilt = (await unknownKey.json()) as Json;
      expect(rebuilt.variable[1]).toEqual({ key: 'vendorToken', value: '', type: 'string' });
      expect(JSON.stringify(rebuilt)).not.toContain('cbk_');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
