/**
 * One in-memory table of the sandbox core: rows by key, in insertion order, with secondary
 * indexes so that "the accounts of member N" costs the size of the answer, not of the table.
 *
 * Reads nothing; holds rows that callers may mutate in place, except for the key and indexed
 * values, which change only through replace() so the indexes follow. Keys are never reused:
 * nextKey() is one above the highest key the table has ever held, as an identity column is.
 */
/** What generic code (the app's CRUD handlers) needs of a table, whatever its row type. */
export interface Rows<R> {
  get(key: number): R | undefined;
  has(key: number): boolean;
  list(): R[];
  nextKey(): number;
  insert(row: R): R;
  replace(row: R): R;
  delete(key: number): boolean;
}

export class Table<R, I extends string = never> implements Rows<R> {
  private readonly rows = new Map<number, R>();
  private readonly indexes = new Map<I, SecondaryIndex<R>>();
  private highestKey = 0;

  constructor(
    private readonly keyOf: (row: R) => number,
    private readonly indexKeys: Readonly<Record<I, (row: R) => number>>,
    rows: Iterable<R> = [],
  ) {
    for (const name of Object.keys(indexKeys) as I[]) this.indexes.set(name, { buckets: new Map(), valueOfKey: new Map() });
    for (const row of rows) this.insert(row);
  }

  get size(): number {
    return this.rows.size;
  }

  get(key: number): R | undefined {
    return this.rows.get(key);
  }

  has(key: number): boolean {
    return this.rows.has(key);
  }

  /** Every row, in insertion order. */
  list(): R[] {
    return [...this.rows.values()];
  }

  /** The rows whose index `index` has value `value`, in insertion order. */
  where(index: I, value: number): R[] {
    const bucket = this.indexes.get(index)?.buckets.get(value);
    return bucket ? [...bucket.values()] : [];
  }

  nextKey(): number {
    return this.highestKey + 1;
  }

  /** Adds a row whose key is not in the table; throws if it is. */
  insert(row: R): R {
    const key = this.keyOf(row);
    if (this.rows.has(key)) throw new Error(`duplicate key ${key}`);
    this.rows.set(key, row);
    this.highestKey = Math.max(this.highestKey, key);
    this.addToIndexes(key, row);
    return row;
  }

  /** Puts `row` (a new object or the mutated old one) in place of the row with its key; throws if there is none. */
  replace(row: R): R {
    const key = this.keyOf(row);
    if (!this.rows.has(key)) throw new Error(`no row with key ${key}`);
    this.removeFromIndexes(key);
    this.rows.set(key, row);
    this.addToIndexes(key, row);
    return row;
  }

  delete(key: number): boolean {
    if (!this.rows.has(key)) return false;
    this.removeFromIndexes(key);
    return this.rows.delete(key);
  }

  private addToIndexes(key: number, row: R): void {
    for (const [name, index] of this.indexes) {
      const value = this.indexKeys[name](row);
      let bucket = index.buckets.get(value);
      if (!bucket) index.buckets.set(value, (bucket = new Map()));
      bucket.set(key, row);
      index.valueOfKey.set(key, value);
    }
  }

  /** Uses the value recorded at insertion: the row may have been mutated since. */
  private removeFromIndexes(key: number): void {
    for (const index of this.indexes.values()) {
      const value = index.valueOfKey.get(key);
      if (value === undefined) continue;
      index.valueOfKey.delete(key);
      const bucket = index.buckets.get(value);
      bucket?.delete(key);
      if (bucket?.size === 0) index.buckets.delete(value);
    }
  }
}

interface SecondaryIndex<R> {
  readonly buckets: Map<number, Map<number, R>>;
  readonly valueOfKey: Map<number, number>;
}
