/** The step sequence keeps Express's handler contract: order, errors, throws, rejections. */
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import request from 'supertest';
import { inSequence } from './sequence';

function appWith(steps: RequestHandler[]): express.Express {
  const app = express();
  app.use(inSequence(steps));
  app.use((_req, res) => {
    res.status(404).send(`fell through ${String(res.locals.trail ?? '')}`);
  });
  const onError: ErrorRequestHandler = (err: Error, _req, res, _next) => {
    res.status(500).send(`error ${err.message} ${String(res.locals.trail ?? '')}`);
  };
  app.use(onError);
  return app;
}

const mark =
  (name: string): RequestHandler =>
  (_req, res, next) => {
    res.locals.trail = `${String(res.locals.trail ?? '')}${name}`;
    next();
  };

describe('inSequence', () => {
  it('runs the steps in order and then the next app handler', async () => {
    const res = await request(appWith([mark('a'), mark('b'), mark('c')])).get('/');
    expect(res.text).toBe('fell through abc');
  });

  it('lets a step answer and stop the sequence', async () => {
    const res = await request(appWith([mark('a'), (_req, res) => void res.send('answered'), mark('never')])).get('/');
    expect(res.text).toBe('answered');
  });

  it('skips the remaining steps on next(err), a throw, or a rejected promise', async () => {
    const failWith: RequestHandler[] = [
      (_req, _res, next) => next(new Error('passed')),
      () => {
        throw new Error('thrown');
      },
      async () => {
        await Promise.resolve();
        throw new Error('rejected');
      },
    ];
    for (const failing of failWith) {
      const res = await request(appWith([mark('a'), failing, mark('never')])).get('/');
      expect(res.status).toBe(500);
      expect(res.text).toMatch(/^error (passed|thrown|rejected) a$/);
    }
  });

  it('keeps its steps readable in order', () => {
    const steps = [mark('a'), mark('b')];
    expect(inSequence(steps).steps).toEqual(steps);
  });
});
