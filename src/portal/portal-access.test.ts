import { ROUTES } from '../catalogue/api-catalogue';
import type { OpenApiDocument } from '../openapi/openapi';
import { apiIdsGranted, documentFor } from './portal-access';

describe('apiIdsGranted', () => {
  it('gives the catalogue API ids a pattern matches', () => {
    const granted = apiIdsGranted({ id: 'lic-1', api: 'GET*' }, Date.now());
    expect(granted.length).toBeGreaterThan(0);
    expect(granted.every((apiId) => apiId.startsWith('GET'))).toBe(true);
    expect(granted).toHaveLength(ROUTES.filter((route) => route.method === 'GET').length);
  });

  it('gives nothing for an expired licence', () => {
    expect(apiIdsGranted({ id: 'lic-1', api: '*', expiresAt: '2020-01-01T00:00:00Z' }, Date.now())).toEqual([]);
  });
});

describe('documentFor', () => {
  const document = {
    openapi: '3.1.0',
    tags: [{ name: 'Accounts' }, { name: 'Receipts' }],
    paths: {
      '/accounts/': { get: { 'x-api-id': 'GETaccounts/', tags: ['Accounts'] } },
      '/receipts/': {
        parameters: [{ name: 'x' }],
        post: { 'x-api-id': 'POSTreceipts/', tags: ['Receipts'] },
        get: { 'x-api-id': 'GETreceipts/', tags: ['Receipts'] },
      },
    },
  } as unknown as OpenApiDocument;

  it('keeps only granted operations, their paths and tags', () => {
    const filtered = documentFor(document, new Set(['GETaccounts/']));
    expect(filtered.paths).toEqual({ '/accounts/': { get: { 'x-api-id': 'GETaccounts/', tags: ['Accounts'] } } });
    expect(filtered.tags).toEqual([{ name: 'Accounts' }]);
  });

  it("keeps a path's shared parameters beside a kept operation only", () => {
    const filtered = documentFor(document, new Set(['GETreceipts/']));
    expect(filtered.paths['/receipts/']).toEqual({ get: { 'x-api-id': 'GETreceipts/', tags: ['Receipts'] }, parameters: [{ name: 'x' }] });
    expect(documentFor(document, new Set()).paths).toEqual({});
  });
});
