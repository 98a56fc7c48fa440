import type { Request, Response } from 'express';
import { ROUTES } from '../../catalogue/api-catalogue';
import { GatewayError } from '../../errors/error-catalogue';
import { newContext, type RequestContext } from '../../request/context';
import { requestTarget } from './request-target';

const ACCOUNTS = ROUTES.find((r) => r.apiId === 'GETaccounts');

function run(url: string): { ctx: RequestContext; error: GatewayError | null } {
  const ctx = { ...newContext('r'), route: ACCOUNTS ?? null, params: {} };
  let error: GatewayError | null = null;
  try {
    requestTarget()({ url } as Request, { locals: { ctx } } as unknown as Response, () => undefined);
  } catch (err) {
    error = err as GatewayError;
  }
  return { ctx, error };
}

describe('request-target step', () => {
  it('sets the core target the gateway built', () => {
    const { ctx, error } = run('/accounts?paged=true&page=02');
    expect(error).toBeNull();
    expect(ctx.coreTarget).toBe('/accounts?paged=true&page=2');
  });

  it('refuses a bad query with one 400 naming every bad parameter, and sets no target', () => {
    const { ctx, error } = run('/accounts?x=1&paged=true&page=0');
    expect(error).toMatchObject({ code: 'invalid_request', errors: [{ field: 'x' }, { field: 'page' }] });
    expect(ctx.coreTarget).toBeNull();
  });
});
