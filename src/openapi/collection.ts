/**
 * The downloadable Postman (v2.1) collection of the vendor API, `GET /docs/collection.json`,
 * written from the OpenAPI document the gateway serves, so it cannot say anything the document
 * does not: one folder per tag, one request per operation, each parameter and body filled with
 * the document's own examples (`parameter.example`, else its schema's `example` or first `enum`
 * value; the JSON media type's `example`). A value the document gives no example for is left as
 * a visible `<name>` placeholder (an optional query parameter is left out, disabled), never made up.
 *
 * Two collection variables: `baseUrl`, the gateway's public origin (the document's `servers`
 * when absolute, else the origin the request came to, by forwarded.ts's rule), and
 * `vendorToken`, sent by the collection's API-key auth in the document's vendor-token header.
 * In sandbox mode the token is the published demo key and the requests are those the loaded
 * access document licenses and permits it to make; with a real core (or a sandbox whose access
 * document does not hold the demo key) the token is empty, for the vendor's own, and every
 * operation is listed. A real key is never written here.
 *
 * So that a run of the whole collection in its order holds together: every Idempotency-Key and
 * every body's `externalRefNo` is `{{$guid}}` (a fresh value per request: no replay, no
 * duplicate reference from an earlier run or a colleague's), the bank-account
 * verification runs before the rest of its folder (the add redeems the code it sends), and the
 * add's created `Id` is kept in the `bankAccountId` variable for the read and the update of one
 * bank account when the document gives their path id no example. Each request tests that its
 * answer is 2xx. A code is single-use and SMS sends are limited per number: one whole run per
 * fresh sandbox.
 *
 * Reads the document and, per build, the access index; sets nothing. Built once per public
 * origin and access-config version, and served by public-file.ts with its ETag.
 */
import type http from 'node:http';
import type { AccessIndex } from '../access/access-index';
import type { ForwardedResolver } from '../core-client/forwarded';
import type { OpenApiDocument } from './openapi';
import { publicFile, type PublicFile } from './public-file';
import { filePerOrigin } from './served-document';

type Json = Record<string, unknown>;

const SCHEMA_URL = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';

/** The operation that sends the code the others of its folder redeem: it runs first (an API id: public contract). */
const RUNS_FIRST = new Set(['POSTbankaccounts/verification']);
/** The operation whose created record's `Id` is kept, and the variable it is kept in. */
const CREATES_BANK_ACCOUNT = 'POSTbankaccounts/add';
const BANK_ACCOUNT_VARIABLE = 'bankAccountId';
/** The operations on one bank account, which run after the add and take the kept `Id` when the document gives no example. */
const READS_OR_UPDATES_BANK_ACCOUNT = new Set(['GETbankaccounts/{id}', 'PUTbankaccounts/{bankaccountid}']);
const FRESH = '{{$guid}}';

/** Whose key the collection carries and which operations it lists. */
export interface CollectionKey {
  /** The published sandbox key, or null: the collection then carries an empty key and every operation. */
  readonly token: string | null;
  /** Whether the key may make this operation (its API id); asked only when `token` is set. */
  readonly mayCall: (apiId: string) => boolean;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A `$ref` into this document resolved (`#/components/...`), or the value itself. */
function resolved(document: OpenApiDocument, value: unknown): Json {
  if (!isObject(value)) return {};
  const ref = value.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return value;
  let target: unknown = document;
  for (const part of ref.slice(2).split('/')) target = isObject(target) ? target[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return isObject(target) ? target : {};
}

/** The first example an OpenAPI object gives: its `example`, else the first of its `examples` (a map of Example objects). */
function ownExample(object: Json): { value: unknown } | null {
  if (object.example !== undefined) return { value: object.example };
  const examples = object.examples;
  if (isObject(examples)) {
    const first = Object.values(examples).find((example) => isObject(example) && example.value !== undefined);
    if (isObject(first)) return { value: first.value };
  }
  return null;
}

/** A parameter's example: its own, else its schema's `example`, first `examples` entry or first `enum` value. */
function parameterExample(document: OpenApiDocument, parameter: Json): string | null {
  const own = ownExample(parameter);
  if (own) return String(own.value);
  const schema = resolved(document, parameter.schema);
  if (schema.example !== undefined) return String(schema.example);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return String(schema.examples[0]);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return String(schema.enum[0]);
  return null;
}

/** The JSON body to send: the media type's example, else its schema's; `{}` when the document has none. */
function bodyExample(document: OpenApiDocument, requestBody: unknown): unknown {
  const content = resolved(document, requestBody).content;
  const media = isObject(content) ? resolved(document, content['application/json']) : {};
  const own = ownExample(media);
  if (own) return own.value;
  const schema = resolved(document, media.schema);
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  return {};
}

/** The body with each `externalRefNo` (any letter case) fresh per request, so a second run is no duplicate. */
function withFreshReferences(body: unknown): unknown {
  if (!isObject(body)) return body;
  return Object.fromEntries(
    Object.entries(body).map(([name, value]) => [name, name.toLowerCase() === 'externalrefno' && typeof value === 'string' ? FRESH : value]),
  );
}

/** The headers of the API-key schemes an operation needs besides the collection's own (a receipt header configured apart). */
function extraKeyHeaders(document: OpenApiDocument, operation: Json, authScheme: string): string[] {
  const requirement = Array.isArray(operation.security) && isObject(operation.security[0]) ? operation.security[0] : {};
  const schemes = isObject(document.components) && isObject(document.components.securitySchemes) ? document.components.securitySchemes : {};
  return Object.keys(requirement)
    .filter((name) => name !== authScheme)
    .map((name) => schemes[name])
    .filter((scheme): scheme is Json => isObject(scheme) && scheme.type === 'apiKey' && scheme.in === 'header' && typeof scheme.name === 'string')
    .map((scheme) => scheme.name as string);
}

function requestItem(document: OpenApiDocument, template: string, method: string, operation: Json, authScheme: string): Json {
  const apiId = String(operation['x-api-id'] ?? '');
  const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []).map((p) => resolved(document, p));
  const of = (where: string): Json[] => parameters.filter((p) => p.in === where);
  const variables = of('path').map((p) => {
    const example = parameterExample(document, p);
    const kept = READS_OR_UPDATES_BANK_ACCOUNT.has(apiId) ? `{{${BANK_ACCOUNT_VARIABLE}}}` : null;
    return { key: String(p.name), value: example ?? kept ?? `<${String(p.name)}>`, ...(p.description ? { description: String(p.description) } : {}) };
  });
  const query = of('query').map((p) => {
    const example = parameterExample(document, p);
    const value = example ?? (p.required === true ? `<${String(p.name)}>` : '');
    return {
      key: String(p.name),
      value,
      ...(example === null && p.required !== true ? { disabled: true } : {}),
      ...(p.description ? { description: String(p.description) } : {}),
    };
  });
  const headers = of('header').map((p) => {
    const value = String(p.name).toLowerCase() === 'idempotency-key' ? FRESH : (parameterExample(document, p) ?? `<${String(p.name)}>`);
    return { key: String(p.name), value, ...(p.description ? { description: String(p.description) } : {}) };
  });
  for (const name of extraKeyHeaders(document, operation, authScheme))
    headers.push({ key: name, value: '{{vendorToken}}', description: 'The receipt key: here the same key' });
  const segments = template
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => segment.replace(/^\{(.+)\}$/, ':$1'));
  const enabledQuery = query.filter((q) => !('disabled' in q)).map((q) => `${encodeURIComponent(q.key)}=${q.value}`);
  const request: Json = {
    method: method.toUpperCase(),
    header: headers,
    url: {
      raw: `{{baseUrl}}/${segments.join('/')}${enabledQuery.length > 0 ? `?${enabledQuery.join('&')}` : ''}`,
      host: ['{{baseUrl}}'],
      path: segments,
      ...(query.length > 0 ? { query } : {}),
      ...(variables.length > 0 ? { variable: variables } : {}),
    },
    ...(typeof operation.description === 'string' ? { description: operation.description } : {}),
  };
  if (operation.requestBody !== undefined) {
    headers.push({ key: 'Content-Type', value: 'application/json' });
    request.body = {
      mode: 'raw',
      raw: JSON.stringify(withFreshReferences(bodyExample(document, operation.requestBody)), null, 2),
      options: { raw: { language: 'json' } },
    };
  }
  const item: Json = { name: String(operation.summary ?? operation.operationId ?? `${method.toUpperCase()} ${template}`), request };
  if (apiId === CREATES_BANK_ACCOUNT) {
    item.event = [
      script('test', [
        '// Keeps the created bank account for the update that follows.',
        'if (pm.response.code === 201) {',
        `  pm.collectionVariables.set('${BANK_ACCOUNT_VARIABLE}', String(pm.response.json().Id));`,
        '}',
      ]),
    ];
  }
  return item;
}

const script = (listen: 'test' | 'prerequest', exec: string[]): Json => ({ listen, script: { type: 'text/javascript', exec } });

/** The gateway's public origin: the document's first server when it is an absolute URL, else `origin`. */
function baseUrlOf(document: OpenApiDocument, origin: string): string {
  const servers = document.servers;
  const url = Array.isArray(servers) && isObject(servers[0]) ? servers[0].url : undefined;
  return (typeof url === 'string' && /^https?:\/\//i.test(url) ? url : origin).replace(/\/+$/, '');
}

/** The collection for requests that come to `origin` (`https://api.bank.example`). */
export function buildCollection(document: OpenApiDocument, origin: string, key: CollectionKey): Json {
  const schemes = isObject(document.components) && isObject(document.components.securitySchemes) ? document.components.securitySchemes : {};
  const authScheme = 'vendorToken';
  const auth = resolved(document, schemes[authScheme]);
  const folders = new Map<string, Json[]>();
  for (const [template, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!isObject(operation) || typeof operation['x-api-id'] !== 'string') continue;
      if (key.token !== null && !key.mayCall(operation['x-api-id'])) continue;
      const tag = Array.isArray(operation.tags) && typeof operation.tags[0] === 'string' ? operation.tags[0] : 'default';
      const item = requestItem(document, template, method, operation, authScheme);
      const folder = folders.get(tag) ?? [];
      if (RUNS_FIRST.has(operation['x-api-id'])) folder.unshift(item);
      else folder.push(item);
      folders.set(tag, folder);
    }
  }
  const tagDescriptions = new Map(
    (Array.isArray(document.tags) ? document.tags : [])
      .filter(isObject)
      .map((tag) => [String(tag.name), typeof tag.description === 'string' ? tag.description : '']),
  );
  const info = isObject(document.info) ? document.info : {};
  return {
    info: {
      name: String(info.title ?? 'Vendor API'),
      description: [
        `Every request ${key.token === null ? 'of the API' : 'the sandbox demo key may make'}, from ${baseUrlOf(document, origin)}/openapi.json (version ${String(info.version ?? '')}).`,
        key.token === null
          ? 'Set vendorToken to your own key; each operation needs its licence and permission.'
          : 'vendorToken holds the published sandbox demo key; run the whole collection in order against a fresh sandbox.',
        'Idempotency-Key and externalRefNo are {{$guid}}: a fresh value per request.',
      ].join('\n\n'),
      schema: SCHEMA_URL,
    },
    item: [...folders].map(([tag, items]) => ({ name: tag, ...(tagDescriptions.get(tag) ? { description: tagDescriptions.get(tag) } : {}), item: items })),
    auth: {
      type: 'apikey',
      apikey: [
        { key: 'key', value: String(auth.name ?? 'X-Vendor-Token'), type: 'string' },
        { key: 'value', value: '{{vendorToken}}', type: 'string' },
        { key: 'in', value: 'header', type: 'string' },
      ],
    },
    event: [script('test', ["pm.test('answers 2xx', function () {", '  pm.expect(pm.response.code).to.be.within(200, 299);', '});'])],
    variable: [
      { key: 'baseUrl', value: baseUrlOf(document, origin), type: 'string' },
      { key: 'vendorToken', value: key.token ?? '', type: 'string' },
      { key: BANK_ACCOUNT_VARIABLE, value: '', type: 'string' },
    ],
  };
}

interface CollectionFileOptions {
  readonly document: OpenApiDocument;
  /** The origin a request came to (server.publicUrl, trusted forwarded host, else the listener). */
  readonly origin: ForwardedResolver;
  /** The published sandbox demo key in sandbox mode; null with a real core, whose keys the collection never carries. */
  readonly sandboxKey: string | null;
  /** The live access index (null until loaded): decides which operations the sandbox key may make. */
  readonly access: () => AccessIndex | null;
}

/**
 * `GET /docs/collection.json` as a public file per request: built on first use for each public
 * origin and kept while the access config's version stands (the demo key's grants could change).
 */
export function collectionFile(options: CollectionFileOptions): (req: http.IncomingMessage) => PublicFile {
  return filePerOrigin(
    options.origin,
    (origin) =>
      publicFile(
        JSON.stringify(buildCollection(options.document, origin, collectionKey(options.sandboxKey, options.access())), null, 2),
        'application/json; charset=utf-8',
      ),
    () => options.access()?.version ?? null,
  );
}

/** The sandbox key with what the access index lets it call; none when the index does not know it (or is not loaded). */
function collectionKey(sandboxKey: string | null, index: AccessIndex | null): CollectionKey {
  const known = sandboxKey !== null && index ? index.authenticate(sandboxKey) : null;
  if (!known?.ok || !index || sandboxKey === null) return { token: null, mayCall: () => true };
  return { token: sandboxKey, mayCall: (apiId) => index.authorize(known.principal, known.vendor, apiId) === null };
}
