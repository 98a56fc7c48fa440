/**
 * The catalogue against the spec: parses docs/spec/core-banking-integration-service.md (a copy
 * of the product spec, checked against shared/ when that is beside the repo) and checks that
 * every operation it lists is in the catalogue and nothing else is.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROUTES, ROUTES_BY_API_ID, specOperations } from './api-catalogue';

const SPEC_COPY = path.resolve(__dirname, '../../docs/spec/core-banking-integration-service.md');
const SHARED_SPEC = path.resolve(__dirname, '../../../shared/spec/core-banking-integration-service.md');
const spec = readFileSync(SPEC_COPY, 'utf8');

function section(startMarker: string, endMarker: string): string {
  const start = spec.indexOf(startMarker);
  const end = spec.indexOf(endMarker, start + startMarker.length);
  expect(start).toBeGreaterThanOrEqual(0);
  return spec.slice(start, end === -1 ? undefined : end);
}

/** [method, path] pairs the spec lists, each path without leading or trailing slash. */
function operationsFromSpec(): string[] {
  const out: string[] = [];
  const rootsLine = spec.split('\n').find((l) => l.startsWith('Resource roots:'));
  const roots = [...(rootsLine ?? '').matchAll(/`\/(\w+)`/g)].map((m) => m[1] as string);
  const idLine = section('The id segment is named as follows:', '\n');
  const items = [...idLine.replace('The id segment is named as follows:', '').matchAll(/(\w+)(?: \(([^)]*)\))?/g)];
  const idNames = new Map<string, string>();
  let next = 0;
  for (const [, name, owners] of items) {
    const ownerList = owners ? owners.split(',').map((s) => s.trim()) : [roots[next] as string];
    for (const owner of ownerList) {
      expect(owner).toBe(roots[next]);
      idNames.set(owner, name as string);
      next++;
    }
  }
  for (const root of roots) {
    const id = idNames.get(root);
    out.push(`GET ${root}`, `GET ${root}/{${id}}`, `GET ${root}`, `POST ${root}`, `PUT ${root}/{${id}}`, `DELETE ${root}/{${id}}`);
  }
  // "The banks resource lists only GET, on /banks/ and on the SEARCH form".
  expect(spec).toContain('The `banks` resource lists only GET, on `/banks/` and on the SEARCH form');
  out.push('GET banks', 'GET banks');
  for (const m of section('Additional GET paths:', '### Bank account operations').matchAll(/^\| `\/([^`]+)` \|/gm)) out.push(`GET ${m[1]}`);
  for (const m of section('### Bank account operations', '### Receipt operations').matchAll(/^\| (GET|POST|PUT|DELETE) `\/([^`]+)` \|/gm)) {
    out.push(`${m[1]} ${m[2]}`);
  }
  for (const m of section('### Receipt operations', '#### Fields common').matchAll(/^\| (POST) `([^`]+)` \|/gm)) out.push(`${m[1]} ${m[2]}`);
  return out;
}

describe('API catalogue', () => {
  it('lists exactly the operations the spec lists (16 roots × 6, banks × 2, 13 additional GETs, 5 bank-account, 3 receipt)', () => {
    const fromSpec = operationsFromSpec().sort();
    const fromCatalogue = specOperations()
      .map((o) => `${o.method} ${o.path}`)
      .sort();
    expect(fromSpec).toHaveLength(16 * 6 + 2 + 13 + 5 + 3);
    expect(fromCatalogue).toEqual(fromSpec);
  });

  it('serves every operation through exactly one route, ALL and SEARCH sharing one', () => {
    const served = ROUTES.flatMap((r) => r.operations);
    expect(served).toHaveLength(specOperations().length);
    // 16 roots × 5 routes (ALL and SEARCH share one) + banks + 13 additional GETs + 4 more bank-account + 3 receipts.
    expect(ROUTES).toHaveLength(16 * 5 + 1 + 13 + 4 + 3);
    expect(ROUTES_BY_API_ID.get('GETaccounts')?.operations.map((o) => o.kind)).toEqual(['ALL', 'SEARCH']);
  });

  it('names API ids as the method followed by the spec path template', () => {
    for (const apiId of [
      'POSTapi/transaction/savings/deposit',
      'GETaccounts/{accountId}',
      'GETcustomers/{memberId}/accounts',
      'GETaccounts',
      'GETbanks',
      'DELETEpeople/{memberId}',
      'PUTbankaccounts/{bankaccountid}',
    ]) {
      expect(ROUTES_BY_API_ID.has(apiId)).toBe(true);
    }
    expect(ROUTES_BY_API_ID.has('GETbanks/{id}')).toBe(false);
  });

  it('serves the customer bank-account list, listed twice by the spec, as one bank-account route', () => {
    const route = ROUTES_BY_API_ID.get('GETcustomers/{memberId}/bankaccounts');
    expect(route?.group).toBe('bankaccounts');
    expect(route?.operations.map((o) => o.kind)).toEqual(['ADDITIONAL_GET', 'BANK_ACCOUNT']);
  });

  it('puts receipts in the receipts breaker group with the four media types, and marks money movement', () => {
    const receipts = ROUTES.filter((r) => r.group === 'receipts');
    expect(receipts.map((r) => r.apiId).sort()).toEqual([
      'POSTapi/transaction/loan/reversal',
      'POSTapi/transaction/savings/deposit',
      'POSTapi/transaction/savings/payment',
    ]);
    for (const r of receipts) {
      expect(r.consumes).toEqual(['application/json', 'text/json', 'application/xml', 'text/xml']);
      expect(r.movesMoney).toBe(true);
      expect(r.bodySchema).not.toBeNull();
    }
    expect(ROUTES_BY_API_ID.get('POSTbankaccounts/add')?.movesMoney).toBe(true);
    expect(ROUTES.filter((r) => r.movesMoney)).toHaveLength(4);
  });

  it('marks only the resource-root GETs as SEARCH routes', () => {
    expect(ROUTES.filter((r) => r.search)).toHaveLength(17);
    expect(ROUTES_BY_API_ID.get('GETbanks')?.search).toBe(true);
    expect(ROUTES_BY_API_ID.get('GETaccounts/{accountId}')?.search).toBe(false);
  });

  const sharedSpecTest = existsSync(SHARED_SPEC) ? it : it.skip;
  sharedSpecTest('keeps docs/spec in step with the shared product spec', () => {
    expect(readFileSync(SHARED_SPEC, 'utf8')).toBe(spec);
  });
});
