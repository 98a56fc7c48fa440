/**
 * The disposal stack: last opened, first closed, each disposal awaited before the next; a failing
 * disposal does not keep the others from running; unwinding twice closes nothing twice; nothing
 * can be registered once it has unwound.
 */
import { DisposalStack } from './disposal-stack';

describe('DisposalStack', () => {
  it('runs the disposals in reverse order of registration, each awaited before the next', async () => {
    const stack = new DisposalStack();
    const closed: string[] = [];
    stack.defer(() => closed.push('redis'));
    stack.adopt('listener', async (name) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      closed.push(name);
    });
    stack.defer(() => closed.push('status'));
    await stack.disposeAsync();
    expect(closed).toEqual(['status', 'listener', 'redis']);
  });

  it('hands back what it adopts and what it uses, and uses a resource by its Symbol.asyncDispose or Symbol.dispose', async () => {
    const stack = new DisposalStack();
    const closed: string[] = [];
    const asyncOne = { [Symbol.asyncDispose]: async () => void closed.push('async') };
    const syncOne = { [Symbol.dispose]: () => void closed.push('sync') };
    expect(stack.use(asyncOne)).toBe(asyncOne);
    expect(stack.use(syncOne)).toBe(syncOne);
    expect(stack.use(null)).toBeNull();
    expect(stack.adopt(42, () => closed.push('adopted'))).toBe(42);
    await stack.disposeAsync();
    expect(closed).toEqual(['adopted', 'sync', 'async']);
  });

  it('runs every disposal when one fails, then rejects with that failure', async () => {
    const stack = new DisposalStack();
    const closed: string[] = [];
    stack.defer(() => closed.push('first'));
    stack.defer(() => {
      throw new Error('tracing exporter down');
    });
    stack.defer(() => closed.push('last'));
    await expect(stack.disposeAsync()).rejects.toThrow('tracing exporter down');
    expect(closed).toEqual(['last', 'first']);
  });

  it('rejects with an AggregateError holding every failure when several fail', async () => {
    const stack = new DisposalStack();
    stack.defer(() => Promise.reject(new Error('one')));
    stack.defer(() => Promise.reject(new Error('two')));
    const failure = await stack.disposeAsync().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(AggregateError);
    expect((failure as AggregateError).errors.map((err: Error) => err.message)).toEqual(['two', 'one']);
  });

  it('closes each resource once when unwound twice, the second call waiting for the first', async () => {
    const stack = new DisposalStack();
    let closes = 0;
    stack.defer(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      closes += 1;
    });
    const first = stack.disposeAsync();
    const second = stack.disposeAsync();
    expect(second).toBe(first);
    await second;
    expect(closes).toBe(1);
    expect(stack.disposed).toBe(true);
  });

  it('refuses a registration after it has unwound, as a resource opened then would never be closed', async () => {
    const stack = new DisposalStack();
    await stack.disposeAsync();
    expect(() => stack.defer(() => undefined)).toThrow(ReferenceError);
  });
});
