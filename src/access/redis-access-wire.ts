/**
 * The Redis access store's records as they travel to and from Redis: an operation as the change
 * scripts read it (`toWire`), and the checked parse of what Redis hands back (a version, a
 * record, a change of the change stream, the earlier single document). Anything Redis holds that
 * does not parse is an InvalidAccessDocumentError naming the key and the record, never a config
 * served half-read. Reads nothing; sets nothing.
 */
import type { ZodError, ZodType } from 'zod';
import { accessDocumentSchema, type AccessDocument } from './model';
import { RECORD_SCHEMAS, recordJson, type AccessOp, type RecordKind } from './access-state';
import type { AccessChange } from './access-store';

export class InvalidAccessDocumentError extends Error {
  override readonly name = 'InvalidAccessDocumentError';
}

/**
 * A record kind as the scripts and the change stream name it: a proposal is `change` there, as
 * releases before the rename wrote it (stream entries outlive a rolling upgrade); a portal user
 * is `portalUser`.
 */
export type WireKind = Exclude<RecordKind, 'proposal'> | 'change';

const wireKind = (kind: RecordKind): WireKind => (kind === 'proposal' ? 'change' : kind);
export const recordKindOf = (kind: WireKind): RecordKind => (kind === 'change' ? 'proposal' : kind);

/** An operation as the scripts read it: values as their stored JSON, '' for none. */
interface WireOp {
  readonly k: WireKind;
  readonly id: string;
  readonly v: string;
  readonly e?: string;
  readonly h?: string;
  readonly vid?: string;
}

export function toWire(op: AccessOp): WireOp {
  const wire: { -readonly [K in keyof WireOp]: WireOp[K] } = { k: wireKind(op.kind), id: op.id, v: op.value ? recordJson(op.kind, op.value) : '' };
  if (op.expect !== undefined) wire.e = op.expect === null ? '' : recordJson(op.kind, op.expect);
  if (op.kind === 'key' && op.value) wire.h = op.value.hash;
  // The commit script refuses a key or portal user whose vendor does not exist.
  if ((op.kind === 'key' || op.kind === 'portalUser') && op.value) wire.vid = op.value.vendorId;
  return wire;
}

function describeIssues(error: ZodError): string {
  return error.issues.map((issue) => `  ${issue.path.join('.') || '(root)'}: ${issue.message}`).join('\n');
}

/** JSON text checked by `schema`; `where` says what it is, for the error. */
function parseJson<T>(schema: ZodType<T>, json: string, where: string): T {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new InvalidAccessDocumentError(`${where} is not valid JSON`);
  }
  const result = schema.safeParse(raw);
  if (!result.success) throw new InvalidAccessDocumentError(`${where} is invalid:\n${describeIssues(result.error)}`);
  return result.data;
}

/** The version key's text (`key` names it in the error); 0 when absent. */
export function parseVersion(text: string | null, key: string): number {
  if (text === null) return 0;
  const version = Number(text);
  if (!Number.isSafeInteger(version) || version < 0) {
    throw new InvalidAccessDocumentError(`Redis key ${key} holds "${text.slice(0, 40)}", not a version number`);
  }
  return version;
}

/** One record of the hash `key`. */
export function parseRecord(kind: RecordKind, json: string, id: string, key: string): unknown {
  return parseJson(RECORD_SCHEMAS[kind] as ZodType<unknown>, json, `the ${kind} record "${id.slice(0, 64)}" in Redis (key ${key})`);
}

/** One entry of the change stream `changesKey`; `recordKey` names each kind's hash for errors. */
export function parseChange(fields: string[], changesKey: string, recordKey: (kind: RecordKind) => string): AccessChange {
  const field = (name: string): string | undefined => {
    const at = fields.indexOf(name);
    return at >= 0 && at % 2 === 0 ? fields[at + 1] : undefined;
  };
  const version = Number(field('v'));
  if (field('reload') !== undefined) return { version, ops: null };
  let wire: WireOp[];
  try {
    wire = JSON.parse(field('ops') ?? '[]') as WireOp[];
  } catch {
    throw new InvalidAccessDocumentError(`the change to version ${version} in Redis (key ${changesKey}) is not valid JSON`);
  }
  const ops = wire.map((op) => {
    const kind = recordKindOf(op.k);
    return { kind, id: op.id, value: op.v === '' ? null : parseRecord(kind, op.v, op.id, recordKey(kind)) } as AccessOp;
  });
  return { version, ops };
}

/** The earlier single-document layout's document, kept under `key` at `version`. */
export function parseLegacyDocument(json: string, version: number, key: string): AccessDocument {
  return parseJson(accessDocumentSchema, json, `the access document in Redis (key ${key}, version ${version})`);
}
