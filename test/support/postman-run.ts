/**
 * Runs a Postman (v2.1) collection with newman, as a vendor's CI would, and gives back what each
 * request met: its folder path and method, the API id it calls (read from the OpenAPI document the
 * collection came from) and the answer's status and body. Also converts an OpenAPI document the
 * way a vendor's API client imports it (openapi-to-postmanv2).
 *
 * Reads the collection and the document it is given; sends the collection's requests to wherever
 * its `baseUrl` points (a test's own gateway). newman ships no types: the few members used here
 * are declared below.
 */
import { createRequire } from 'node:module';
import { convert, convertV2, type CollectionResult } from 'openapi-to-postmanv2';

interface NewmanExecution {
  readonly item: { readonly name: string; readonly request: { readonly url: { readonly path?: readonly string[] } } };
  readonly request: {
    readonly method: string;
    readonly url: { getPath(): string };
    readonly headers: { all(): Array<{ key: string; value: string }> };
    readonly body?: { toString(): string };
  };
  readonly response?: { readonly code: number; readonly stream?: Buffer; readonly headers: { get(name: string): string | undefined } };
  readonly requestError?: Error;
}

interface Newman {
  run(
    options: { collection: unknown; envVar?: { key: string; value: string }[]; reporters?: string[]; timeoutRequest?: number },
    callback: (err: Error | null, summary: { run: { executions: NewmanExecution[] } }) => void,
  ): void;
}

const newman = createRequire(__filename)('newman') as Newman;

/** One request of a run, as the assertions read it. */
export interface CollectionCall {
  readonly name: string;
  readonly method: string;
  /** The request's path template in OpenAPI form (`/accounts/{accountId}`). */
  readonly template: string;
  /** The path as sent (`/accounts/50001`). */
  readonly path: string;
  /** The status, or 0 when no answer came. */
  readonly status: number;
  readonly body: string;
  /** The answer's X-Request-Id; empty when no answer came. */
  readonly requestId: string;
  /** The request's headers and body as sent (variables resolved). */
  readonly sentHeaders: Readonly<Record<string, string>>;
  readonly sentBody: string;
}

/** How a client imports: the converter's README `convert` (folders by path) or its `convertV2` (the newer interface), folders by tag. */
export type Conversion = 'convert, folders by path' | 'convertV2, folders by tag';

/** The document converted as a vendor's client imports it, examples preferred to made-up values. */
export function convertOpenApi(document: string, conversion: Conversion = 'convert, folders by path'): Promise<Record<string, unknown>> {
  const [convertWith, folderStrategy] = conversion.startsWith('convertV2') ? [convertV2, 'Tags' as const] : [convert, 'Paths' as const];
  return new Promise((resolve, reject) => {
    convertWith(
      { type: 'string', data: document },
      { requestParametersResolution: 'Example', exampleParametersResolution: 'Example', parametersResolution: 'Example', folderStrategy },
      (err, result?: CollectionResult) => {
        if (err) return reject(new Error(err.message));
        const collection = result?.output?.[0]?.data;
        if (!result?.result || !collection) return reject(new Error(`openapi-to-postmanv2 refused the document: ${result?.reason}`));
        resolve(collection as Record<string, unknown>);
      },
    );
  });
}

/** Runs every request of `collection` in its order, with these variables (`baseUrl`, `apiKey`, ...) beside its own. */
export function runCollection(collection: unknown, variables: Readonly<Record<string, string>> = {}): Promise<CollectionCall[]> {
  const envVar = Object.entries(variables).map(([key, value]) => ({ key, value }));
  return new Promise((resolve, reject) => {
    newman.run({ collection, envVar, reporters: [], timeoutRequest: 30_000 }, (err, summary) => {
      if (err) return reject(err);
      resolve(
        summary.run.executions.map((execution) => ({
          name: execution.item.name,
          method: execution.request.method,
          path: execution.request.url.getPath(),
          template: `/${(execution.item.request.url.path ?? []).map((segment) => (segment.startsWith(':') ? `{${segment.slice(1)}}` : segment)).join('/')}`,
          status: execution.response?.code ?? 0,
          body: execution.response?.stream?.toString('utf8') ?? String(execution.requestError ?? ''),
          requestId: execution.response?.headers.get('X-Request-Id') ?? '',
          sentHeaders: Object.fromEntries(execution.request.headers.all().map(({ key, value }) => [key.toLowerCase(), value])),
          sentBody: execution.request.body?.toString() ?? '',
        })),
      );
    });
  });
}
