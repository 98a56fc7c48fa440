/**
 * Access stores behind one interface, and the memory store (sandbox mode, no REDIS_URL).
 *
 * The memory store reads the declarative access file once, validated by the access
 * document schema; it keeps the document and a version counter, and tells subscribers
 * when the document changes. The Redis store implements the same interface.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { accessDocumentSchema, type AccessDocument } from './model';

export interface VersionedAccessDocument {
  readonly version: number;
  readonly document: AccessDocument;
}

export interface AccessStore {
  read(): Promise<VersionedAccessDocument>;
  /**
   * Replaces the whole document at once (no reader ever sees half of it) and returns the new
   * version. With `expectedVersion`, fails with VersionConflictError when another writer got
   * there first, so read-modify-write admin operations never lose an update.
   */
  replace(document: AccessDocument, expectedVersion?: number): Promise<number>;
  /** Calls `onChange` after any change, on this instance or another; returns an unsubscribe. */
  subscribe(onChange: () => void): () => void;
  close(): Promise<void>;
}

export class VersionConflictError extends Error {
  override readonly name = 'VersionConflictError';
  constructor(
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`access document changed meanwhile (expected version ${expected}, found ${actual})`);
  }
}

export class AccessFileError extends Error {
  override readonly name = 'AccessFileError';
}

/** Parses and validates a declarative access file; errors name the file and each bad key. */
export function parseAccessDocument(text: string, source: string): AccessDocument {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new AccessFileError(`${source}: not valid YAML: ${(err as Error).message}`);
  }
  const result = accessDocumentSchema.safeParse(raw ?? {});
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new AccessFileError(`${source}: invalid access document:\n${lines.join('\n')}`);
  }
  return result.data;
}

export function readAccessFile(file: string): AccessDocument {
  return parseAccessDocument(readFileSync(file, 'utf8'), file);
}

export class MemoryAccessStore implements AccessStore {
  private current: VersionedAccessDocument;
  private readonly listeners = new Set<() => void>();

  constructor(document: AccessDocument) {
    this.current = { version: 1, document: structuredClone(document) };
  }

  async read(): Promise<VersionedAccessDocument> {
    return this.current;
  }

  async replace(document: AccessDocument, expectedVersion?: number): Promise<number> {
    if (expectedVersion !== undefined && expectedVersion !== this.current.version) {
      throw new VersionConflictError(expectedVersion, this.current.version);
    }
    this.current = { version: this.current.version + 1, document: structuredClone(document) };
    for (const listener of this.listeners) listener();
    return this.current.version;
  }

  subscribe(onChange: () => void): () => void {
    this.listeners.add(onChange);
    return () => this.listeners.delete(onChange);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
