/**
 * A stack of disposals, shaped like the TC39 `AsyncDisposableStack` (use, adopt, defer,
 * disposeAsync): whoever opens a resource registers its disposal right after, and one call
 * unwinds everything in reverse order of opening. The gateway's stop and a failed start share it.
 *
 * Our own because Node 22 (the oldest `engines` allows) has no `AsyncDisposableStack`, and
 * Node 24 ships it only behind --js-explicit-resource-management. Swap for the native one once
 * both do.
 *
 * Reads and sets nothing outside itself.
 */

type Disposal = () => unknown;

/** A resource that knows how to close itself (`Symbol.asyncDispose` or `Symbol.dispose`). */
type Disposable = { [Symbol.asyncDispose](): PromiseLike<void> } | { [Symbol.dispose](): void };

export class DisposalStack {
  private readonly disposals: Disposal[] = [];
  private disposing: Promise<void> | null = null;

  /** True once `disposeAsync` has been called: nothing more can be registered. */
  get disposed(): boolean {
    return this.disposing !== null;
  }

  /** Registers `onDispose`, to run when the stack unwinds. */
  defer(onDispose: Disposal): void {
    this.assertOpen();
    this.disposals.push(onDispose);
  }

  /** Registers `onDispose(value)` and hands `value` back, so opening and registering are one line. */
  adopt<T>(value: T, onDispose: (value: T) => unknown): T {
    this.defer(() => onDispose(value));
    return value;
  }

  /** Registers a resource's own `Symbol.asyncDispose` (or `Symbol.dispose`); null and undefined are skipped. */
  use<T extends Disposable | null | undefined>(value: T): T {
    if (value === null || value === undefined) return value;
    const resource = value as Partial<Record<symbol, () => unknown>>;
    const dispose = resource[Symbol.asyncDispose] ?? resource[Symbol.dispose];
    if (typeof dispose !== 'function') throw new TypeError('DisposalStack.use: the value has no Symbol.asyncDispose or Symbol.dispose');
    this.defer(() => dispose.call(value));
    return value;
  }

  /**
   * Runs every disposal, last registered first, each awaited before the next; one that fails does
   * not stop the rest. Rejects with the failure (an AggregateError when several failed) once all
   * have run. Called again, it returns the same promise.
   */
  disposeAsync(): Promise<void> {
    this.disposing ??= this.unwind();
    return this.disposing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.disposeAsync();
  }

  private async unwind(): Promise<void> {
    const failures: unknown[] = [];
    for (let disposal = this.disposals.pop(); disposal; disposal = this.disposals.pop()) {
      try {
        await disposal();
      } catch (err) {
        failures.push(err);
      }
    }
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new AggregateError(failures, `${failures.length} disposals failed`);
  }

  private assertOpen(): void {
    // As the native stack does: a resource registered after the unwind would never be closed.
    if (this.disposing) throw new ReferenceError('DisposalStack: already disposed');
  }
}
