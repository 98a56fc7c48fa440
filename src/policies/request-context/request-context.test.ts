import express from 'express';
import { context, type RequestContext } from '../../request/context';
import { listenOnLoopback, type Listening } from '../../../test/support/listen';
import { requestContext } from './request-context';
import { requestContextSchema } from './request-context.schema';

describe('request-context step', () => {
  const observed: RequestContext[] = [];
  let server: Listening;
  beforeAll(async () => {
    const app = express();
    app.use(requestContext(requestContextSchema.parse({}), { onFinish: (_req, _res, ctx) => observed.push(ctx) }));
    app.get('/', (_req, res) => {
      res.json({ requestId: context(res).requestId });
    });
    app.get('/written', (_req, res) => {
      res.write('hello ');
      res.end(Buffer.from('wörld'));
    });
    server = await listenOnLoopback(app);
  });
  afterAll(() => server.close());
  beforeEach(() => (observed.length = 0));

  it('keeps a sane client X-Request-Id on the context and the response', async () => {
    const res = await fetch(server.url, { headers: { 'X-Request-Id': 'vendor-trace:42' } });
    expect(res.headers.get('x-request-id')).toBe('vendor-trace:42');
    expect(await res.json()).toEqual({ requestId: 'vendor-trace:42' });
  });

  it.each(['has spaces', 'x'.repeat(129), 'quote"d', ''])('replaces the client id %j with a fresh UUID', async (sent) => {
    const res = await fetch(server.url, { headers: { 'X-Request-Id': sent } });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('hands every finished exchange to the observer once, with its context', async () => {
    const res = await fetch(server.url, { headers: { 'X-Request-Id': 'observed-1' } });
    await res.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(observed.map((ctx) => ctx.requestId)).toEqual(['observed-1']);
  });

  it('counts the body bytes written, once each, however many times the step was built or its module loaded', async () => {
    jest.isolateModules(() => {
      // A second copy of the module (as another test file in the same worker loads) must not count again.
      (jest.requireActual('./request-context') as typeof import('./request-context')).requestContext(requestContextSchema.parse({}));
    });
    requestContext(requestContextSchema.parse({}));
    const res = await fetch(`${server.url}/written`);
    expect(await res.text()).toBe('hello wörld');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(observed.map((ctx) => ctx.bytesOut)).toEqual([Buffer.byteLength('hello wörld')]);
  });
});
