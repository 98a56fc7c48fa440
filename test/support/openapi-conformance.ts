/**
 * "The document never lies": every answer a test gateway's vendor port gives during a test is
 * checked against the OpenAPI document that gateway serves (`/openapi.json`): its operation
 * documents the status (a problem's, in the operation's own list or as a code of its `default`
 * answered with that code's status), the answer carries the headers marked required, its content type is
 * one the response lists, a JSON body validates against the schema (ajv, JSON Schema 2020-12),
 * an XML body is well-formed with the root element the schema names (a compressed body is
 * decoded first). A gateway on the sandbox
 * core is checked in full; one on a test's own core (which answers whatever the test wants) only
 * has its errors checked: a problem with `code` and `requestId`, or a receipt where the spec
 * answers with one.
 *
 * Reads the answers through Node's `http.server.request.start` diagnostics channel (before any
 * handler writes), so raw-socket tests are covered as much as fetch ones. `startTestGateway`
 * watches each gateway and fails its `stop()` with every answer that did not conform.
 * OPENAPI_CONFORMANCE_REPORT=<file> appends one line per gateway with the number of answers checked.
 */
import { appendFileSync } from 'node:fs';
import diagnosticsChannel from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/errors/error-catalogue';

type Json = Record<string, unknown>;

interface Operation {
  readonly template: string;
  readonly method: string;
  readonly pattern: RegExp;
  readonly literalSegments: number;
  readonly pointer: string;
  readonly operation: Json;
}

interface Answer {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  readonly body: Buffer;
}

const DOCUMENT_ID = 'openapi';
/** Paths the gateway serves outside the API description (the vendor portal's pages and JSON among them). */
const OUTSIDE_THE_API = /^\/(openapi\.json|docs|portal)(\/|$|\?)/;
const RECEIPT_STATUSES = new Set([400, 409, 422]);

const escapePointer = (part: string): string => part.replace(/~/g, '~0').replace(/\//g, '~1');

export class OpenApiConformance {
  /** Answers checked so far. */
  checked = 0;
  readonly failures: string[] = [];
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly operations: Operation[];
  private readonly xmlParser = new XMLParser({ ignoreAttributes: true, removeNSPrefix: true });

  constructor(
    private readonly document: Json,
    /** False when the gateway's core is a test's own: only errors are checked. */
    private readonly full: boolean,
  ) {
    this.ajv.addSchema(document, DOCUMENT_ID);
    this.operations = Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([template, methods]) =>
      Object.entries(methods).map(([method, operation]) => {
        const segments = template.split('/').filter(Boolean);
        const pattern = new RegExp(`^/${segments.map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}/?$`, 'i');
        return {
          template,
          method: method.toUpperCase(),
          pattern,
          literalSegments: segments.filter((s) => !s.startsWith('{')).length,
          pointer: `#/paths/${escapePointer(template)}/${method}`,
          operation,
        };
      }),
    );
  }

  check(answer: Answer): void {
    const path = pathOf(answer.url);
    if (path === null || OUTSIDE_THE_API.test(path)) return;
    // A CORS preflight is HTTP's business, not an operation's; a refused one is still a problem.
    if (answer.method === 'OPTIONS' && answer.status < 400) return;
    this.checked += 1;
    const problems = this.full ? this.fullCheck(answer, path) : this.errorCheck(answer, path);
    for (const problem of problems) this.failures.push(`${answer.method} ${answer.url} → ${answer.status}: ${problem}`);
  }

  private findOperation(method: string, path: string): Operation | undefined {
    const wanted = method === 'HEAD' ? 'GET' : method;
    return this.operations.filter((op) => op.method === wanted && op.pattern.test(path)).sort((a, b) => b.literalSegments - a.literalSegments)[0];
  }

  private fullCheck(answer: Answer, path: string): string[] {
    const operation = this.findOperation(answer.method, path);
    if (!operation) return this.undocumentedPathCheck(answer);
    const responses = operation.operation.responses as Record<string, Json>;
    // A problem status the operation does not list falls to its default response, which names the codes every operation shares.
    const key = String(answer.status) in responses ? String(answer.status) : answer.status >= 400 && 'default' in responses ? 'default' : null;
    if (key === null) return [`status ${answer.status} is not documented for ${operation.method} ${operation.template}`];
    const [response, pointer] = this.resolve(responses[key] as Json, `${operation.pointer}/responses/${key}`);
    const failures = [...this.headerCheck(answer, response), ...(key === 'default' ? this.defaultStatusCheck(answer, operation) : [])];
    const content = response.content as Record<string, Json> | undefined;
    if (answer.method === 'HEAD' || answer.status === 204 || answer.status === 304) {
      if (answer.body.length > 0) failures.push('a body where none may be');
      return failures;
    }
    if (!content) return answer.body.length > 0 ? [...failures, 'a body where the document lists no content'] : failures;
    const mediaType = mediaTypeOf(answer);
    if (!(mediaType in content)) return [...failures, `content type ${mediaType} is not one of ${Object.keys(content).join(', ')}`];
    return [
      ...failures,
      ...this.bodyCheck(answer, mediaType, `${pointer}/content/${escapePointer(mediaType)}/schema`, (content[mediaType] as Json).schema as Json),
    ];
  }

  /**
   * An answer given under `default`: its code must be one the default lists (the body check) and
   * answered with that code's own status, so a status no operation documents still fails.
   */
  private defaultStatusCheck(answer: Answer, operation: Operation): string[] {
    const code = this.problemCodeOf(answer);
    if (code === undefined || !Object.hasOwn(ERROR_CATALOGUE, code)) return [];
    const status = ERROR_CATALOGUE[code as ErrorCode].status;
    return status === answer.status
      ? []
      : [`status ${answer.status} is not documented for ${operation.method} ${operation.template} (its default lists ${code} at ${status})`];
  }

  private problemCodeOf(answer: Answer): string | undefined {
    const mediaType = mediaTypeOf(answer);
    try {
      if (mediaType === 'application/problem+json') return (JSON.parse(answer.body.toString('utf8')) as { code?: string }).code;
      if (mediaType === 'application/problem+xml') return (this.xmlParser.parse(answer.body.toString('utf8')) as { problem?: { code?: string } }).problem?.code;
    } catch {
      return undefined;
    }
    return undefined;
  }

  /** A path or method the document does not list: the answer must be a problem (404, 405, ...). */
  private undocumentedPathCheck(answer: Answer): string[] {
    if (answer.status < 400) return ['a success on a path and method the document does not list'];
    return this.problemCheck(answer);
  }

  private errorCheck(answer: Answer, path: string): string[] {
    if (answer.status < 400) return [];
    const operation = this.findOperation(answer.method, path);
    const isReceipt = operation?.template.startsWith('/api/transaction/') === true;
    const mediaType = mediaTypeOf(answer);
    // The spec's receipts answer 400, 409 and 422 with the receipt itself.
    if (isReceipt && RECEIPT_STATUSES.has(answer.status) && !mediaType.startsWith('application/problem+')) return [];
    return this.problemCheck(answer);
  }

  private problemCheck(answer: Answer): string[] {
    if (answer.method === 'HEAD') return [];
    const mediaType = mediaTypeOf(answer);
    if (mediaType === 'application/problem+json')
      return this.bodyCheck(answer, mediaType, '#/components/schemas/Problem', { $ref: '#/components/schemas/Problem' });
    if (mediaType === 'application/problem+xml') return this.xmlCheck(answer, { $ref: '#/components/schemas/Problem' });
    return [`an error that is not a problem (${mediaType || 'no content type'}): ${answer.body.toString('utf8', 0, 200)}`];
  }

  private headerCheck(answer: Answer, response: Json): string[] {
    const failures: string[] = [];
    for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
      const [resolved] = this.resolve(header, '');
      if (resolved.required === true && answer.headers[name.toLowerCase()] === undefined) failures.push(`required header ${name} missing`);
    }
    return failures;
  }

  private bodyCheck(answer: Answer, mediaType: string, pointer: string, schema: Json): string[] {
    if (!/json$/.test(mediaType)) return this.xmlCheck(answer, schema);
    let body: unknown;
    try {
      body = JSON.parse(answer.body.toString('utf8'));
    } catch {
      return [`the ${mediaType} body is not JSON: ${answer.body.toString('utf8', 0, 200)}`];
    }
    const validate = this.validator(pointer);
    if (validate(body)) return [];
    return [`the body does not match ${pointer}: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}; body ${JSON.stringify(body).slice(0, 300)}`];
  }

  private xmlCheck(answer: Answer, schema: Json): string[] {
    const text = answer.body.toString('utf8');
    if (XMLValidator.validate(text) !== true) return [`the XML body is not well-formed: ${text.slice(0, 200)}`];
    const expected = this.xmlNameOf(schema);
    const root = Object.keys(this.xmlParser.parse(text) as Json).find((name) => name !== '?xml');
    return expected === undefined || root === expected ? [] : [`the XML root is <${String(root)}>, the document says <${expected}>`];
  }

  private xmlNameOf(schema: Json): string | undefined {
    const [resolved] = this.resolve(schema, '');
    if (resolved.xml && typeof (resolved.xml as Json).name === 'string') return (resolved.xml as Json).name as string;
    const first = (resolved.allOf as Json[] | undefined)?.[0];
    return first ? this.xmlNameOf(first) : undefined;
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
      this.validators.set(pointer, validate);
    }
    return validate;
  }

  /** Follows a `$ref` (within the document) and says where the object it reached lives. */
  private resolve(node: Json, pointer: string): [Json, string] {
    let current = node;
    let at = pointer;
    while (typeof current.$ref === 'string') {
      at = current.$ref;
      current = at
        .slice(2)
        .split('/')
        .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<Json>((object, part) => object[part] as Json, this.document);
    }
    return [current, at];
  }
}

function pathOf(url: string): string | null {
  try {
    return new URL(url, 'http://gateway.invalid').pathname;
  } catch {
    return null;
  }
}

function mediaTypeOf(answer: Answer): string {
  const type = answer.headers['content-type'];
  return typeof type === 'string' ? (type.split(';')[0] as string).trim().toLowerCase() : '';
}

/** The body as it was before a Content-Encoding (what the vendor reads once decoded). */
function decoded(body: Buffer, encoding: unknown): Buffer {
  if (body.length === 0) return body;
  switch (typeof encoding === 'string' ? encoding.trim().toLowerCase() : '') {
    case 'gzip':
      return gunzipSync(body);
    case 'br':
      return brotliDecompressSync(body);
    case 'deflate':
      return inflateSync(body);
    default:
      return body;
  }
}

const watched = new Map<number, OpenApiConformance>();
let subscribed = false;

/** Starts checking every answer given on `port`; `stopWatching` ends it. */
export function watchAnswers(port: number, conformance: OpenApiConformance): void {
  watched.set(port, conformance);
  if (subscribed) return;
  subscribed = true;
  diagnosticsChannel.subscribe('http.server.request.start', (message) => {
    const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
    const conformanceOfPort = watched.get(request.socket.localPort ?? -1);
    if (conformanceOfPort) record(request, response, conformanceOfPort);
  });
}

export function stopWatching(port: number, conformance: OpenApiConformance): void {
  if (watched.get(port) === conformance) watched.delete(port);
  const report = process.env.OPENAPI_CONFORMANCE_REPORT;
  if (report)
    appendFileSync(report, `${JSON.stringify({ file: expect.getState().testPath, checked: conformance.checked, failures: conformance.failures.length })}\n`);
}

function record(request: IncomingMessage, response: ServerResponse, conformance: OpenApiConformance): void {
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown, encoding?: unknown): void => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    if (typeof chunk === 'string') chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    else chunks.push(Buffer.from(chunk as Uint8Array));
  };
  const write = response.write.bind(response) as (...args: unknown[]) => boolean;
  const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
  response.write = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return write(...args);
  }) as ServerResponse['write'];
  response.end = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return end(...args);
  }) as ServerResponse['end'];
  response.once('finish', () => {
    // Node sends no body to a HEAD however much a handler writes: what was written is not what went out.
    if (request.method === 'HEAD') chunks.length = 0;
    const headers = response.getHeaders();
    conformance.check({
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      status: response.statusCode,
      headers,
      body: decoded(Buffer.concat(chunks), headers['content-encoding']),
    });
  });
}
