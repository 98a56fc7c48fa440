import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../logging/logger';
import { AfterCore, type AfterCoreDuties, type CoreOutcome, type StoredResponse } from './after-core';

const silent = createLogger('silent');
const ANSWER: StoredResponse = { status: 201, contentType: 'application/json', body: Buffer.from('{}') };

/** Duties that record each call as `<step> <outcome>`. */
function recording(step: string, calls: string[], logger: Logger = silent): AfterCoreDuties {
  const record = (outcome: string) => () => (calls.push(`${step} ${outcome}`), Promise.resolve());
  return {
    step,
    logger,
    answered: (response) => (calls.push(`${step} answered ${response.status}`), Promise.resolve()),
    unknown: record('unknown'),
    refused: record('refused'),
    neverSent: record('neverSent'),
  };
}

function registry(): { afterCore: AfterCore; response: EventEmitter } {
  const afterCore = new AfterCore('req-1');
  const response = new EventEmitter();
  afterCore.bindResponse(response);
  return { afterCore, response };
}

/** A logger whose lines land in `lines`, parsed. */
function capturingLogger(lines: Array<Record<string, unknown>>): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return createLogger('info', sink);
}

describe('after-core registry', () => {
  it.each<[CoreOutcome, string]>([
    [{ kind: 'answered', response: ANSWER }, 'answered 201'],
    [{ kind: 'unknown' }, 'unknown'],
    [{ kind: 'refused' }, 'refused'],
    [{ kind: 'neverSent' }, 'neverSent'],
  ])('tells every step the outcome %j, in the order they registered', async (outcome, heard) => {
    const { afterCore } = registry();
    const calls: string[] = [];
    afterCore.register(recording('idempotency', calls));
    afterCore.register(recording('two-factor', calls));
    await afterCore.settle(outcome);
    expect(calls).toEqual([`idempotency ${heard}`, `two-factor ${heard}`]);
  });

  it('asks nothing of a step that registered no duty for the outcome', async () => {
    const { afterCore } = registry();
    const calls: string[] = [];
    afterCore.register({ step: 'two-factor', logger: silent, refused: () => (calls.push('restore'), Promise.resolve()) });
    await afterCore.settle({ kind: 'answered', response: ANSWER });
    expect(calls).toEqual([]);
  });

  it('settles once: a second outcome, or the response closing afterwards, runs nothing', async () => {
    const { afterCore, response } = registry();
    const calls: string[] = [];
    afterCore.register(recording('idempotency', calls));
    afterCore.coreCallStarted();
    const first = afterCore.settle({ kind: 'unknown' });
    const second = afterCore.settle({ kind: 'answered', response: ANSWER });
    expect(second).toBe(first);
    await second;
    response.emit('close');
    await afterCore.settle({ kind: 'neverSent' });
    expect(calls).toEqual(['idempotency unknown']);
  });

  it('settles as never sent when the response closes before the core call began (an error later in the chain, a vendor gone)', async () => {
    const { afterCore, response } = registry();
    const calls: string[] = [];
    afterCore.register(recording('idempotency', calls));
    afterCore.register(recording('two-factor', calls));
    response.emit('close');
    response.emit('close');
    await afterCore.settle({ kind: 'answered', response: ANSWER });
    expect(calls).toEqual(['idempotency neverSent', 'two-factor neverSent']);
  });

  it('leaves the outcome to the core call once it began: the response closing changes nothing', async () => {
    const { afterCore, response } = registry();
    const calls: string[] = [];
    afterCore.register(recording('idempotency', calls));
    afterCore.coreCallStarted();
    response.emit('close');
    expect(afterCore.settled).toBe(false);
    await afterCore.settle({ kind: 'answered', response: ANSWER });
    expect(calls).toEqual(['idempotency answered 201']);
  });

  it('watches the response only once, and only when a step registered', () => {
    const { afterCore, response } = registry();
    expect(response.listenerCount('close')).toBe(0);
    afterCore.register(recording('idempotency', []));
    afterCore.register(recording('two-factor', []));
    expect(response.listenerCount('close')).toBe(1);
    expect(afterCore.steps).toEqual(['idempotency', 'two-factor']);
  });

  it("runs the other steps' duties when one fails, rejecting or throwing, and logs the failure with its step and outcome", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = capturingLogger(lines);
    const { afterCore } = registry();
    const calls: string[] = [];
    afterCore.register({ step: 'idempotency', logger, refused: () => Promise.reject(new Error('store gone')) });
    afterCore.register({
      step: 'throws',
      logger,
      refused: () => {
        throw new Error('not even a promise');
      },
    });
    afterCore.register(recording('two-factor', calls));
    await expect(afterCore.settle({ kind: 'refused' })).resolves.toBeUndefined();
    expect(calls).toEqual(['two-factor refused']);
    const failures = lines.filter((line) => line.msg === 'an after-core duty failed');
    expect(failures).toEqual([
      expect.objectContaining({
        level: 50,
        step: 'idempotency',
        outcome: 'refused',
        requestId: 'req-1',
        err: expect.objectContaining({ message: 'store gone' }),
      }),
      expect.objectContaining({ level: 50, step: 'throws', outcome: 'refused', requestId: 'req-1' }),
    ]);
  });

  it('tells duties registered after the outcome was settled that outcome at once (a step whose awaits outlasted a vendor gone)', async () => {
    const { afterCore } = registry();
    const calls: string[] = [];
    await afterCore.settle({ kind: 'neverSent' });
    afterCore.register(recording('late', calls));
    await afterCore.settle({ kind: 'answered', response: ANSWER });
    expect(calls).toEqual(['late neverSent']);
  });

  it('refuses duties on a context bound to no response', () => {
    expect(() => new AfterCore('req-2').register(recording('unbound', []))).toThrow(/bound to no response/);
  });

  it('refuses to begin the core call once the response closed before it: the duties already let go', async () => {
    const { afterCore, response } = registry();
    const calls: string[] = [];
    afterCore.register(recording('idempotency', calls));
    response.emit('close');
    expect(afterCore.coreCallStarted()).toBe(false);
    await afterCore.settle({ kind: 'unknown' });
    expect(calls).toEqual(['idempotency neverSent']);
  });

  it('begins the core call while the outcome is open', () => {
    const { afterCore } = registry();
    afterCore.register(recording('idempotency', []));
    expect(afterCore.coreCallStarted()).toBe(true);
  });
});
