/**
 * The DTO schema language: one definition per structure drives validation, the JSON ↔ XML
 * name mapping, type coercion from XML text, which fields are lists, the TypeScript types
 * and the OpenAPI document.
 *
 * Reads nothing; exports field builders and `struct()`. Every field states its JSON name
 * (the key it is defined under, camelCase as the spec's tables write it) and its XML name
 * (the PascalCase .NET name) explicitly: no name is derived by a string rule, because the
 * .NET names do not follow one (`cuAccountID` ↔ `CUAccountID`, `m_CreationDate` stays).
 */
import type { LosslessNumber } from 'lossless-json';

/** The enumerations whose name ↔ number tables live in config/receipt-enums.yaml. */
export const ENUM_NAMES = ['AWReceiptType', 'ProductTypes', 'LoanStatusReversalOptions'] as const;
export type EnumName = (typeof ENUM_NAMES)[number];

interface FieldOptions {
  /** Read-only fields appear in responses; on input they are ignored. */
  readonly readOnly?: boolean;
  /** Required whatever else the body holds (conditional rules live with the DTO). */
  readonly required?: boolean;
}

interface FieldBase extends FieldOptions {
  readonly xml: string;
  readonly description: string;
}

export interface ScalarField<K extends ScalarKind = ScalarKind> extends FieldBase {
  readonly kind: K;
}
export type ScalarKind = 'string' | 'int' | 'decimal' | 'bool' | 'datetime' | 'binary';

export interface EnumField extends FieldBase {
  readonly kind: 'enum';
  readonly enumName: EnumName;
}

export interface ObjectField<S extends AnyStruct = AnyStruct> extends FieldBase {
  readonly kind: 'object';
  readonly struct: S;
}

/** In XML a list is a wrapper element holding one item element per entry, named after the item's struct. */
export interface ListField<S extends AnyStruct = AnyStruct> extends FieldBase {
  readonly kind: 'list';
  readonly struct: S;
}

/**
 * An int → int map: a JSON object with numeric-string keys; in XML a wrapper holding one
 * `entry` element per pair with `Key` and `Value` children (DataContractSerializer's shape).
 */
export interface IntMapField extends FieldBase {
  readonly kind: 'intMap';
  readonly entry: string;
}

export type FieldSpec = ScalarField | EnumField | ObjectField | ListField | IntMapField;
type Fields = Readonly<Record<string, FieldSpec>>;

/** A field as the readers and writers see it: its JSON name beside its spec. */
export interface NamedField {
  readonly json: string;
  readonly spec: FieldSpec;
  /** Position in the structure: readers mark fields seen by index. */
  readonly index: number;
  /** `"cuAccountID":`, written once here rather than per request. */
  readonly jsonKey: string;
}

export interface Struct<F extends Fields = Fields> {
  /** The .NET type name: the XML root element, and the XML item element inside lists. */
  readonly name: string;
  readonly description: string;
  readonly fields: F;
  /** Fields in declaration order (the spec's tables; the order JSON is written in). */
  readonly ordered: readonly NamedField[];
  /**
   * Fields in DataContract order, the order XML is written in (DataContractSerializer reads
   * members only in it): by ordinal XML name, unless the struct names its own order.
   */
  readonly xmlOrdered: readonly NamedField[];
  /** Lower-cased JSON and XML names → field: input names match case-insensitively. */
  readonly byLowerName: ReadonlyMap<string, NamedField>;
  /** JSON and XML names as the schema spells them: the common case, looked up without lower-casing. */
  readonly byName: ReadonlyMap<string, NamedField>;
  /** Fields flagged `required`. */
  readonly required: readonly NamedField[];
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a struct of any field set, for generic walkers
export type AnyStruct = Struct<any>;

/** The TypeScript type of a field's canonical value. */
export type FieldValue<F> =
  F extends ScalarField<'string' | 'datetime' | 'binary'>
    ? string
    : F extends ScalarField<'int'> | EnumField
      ? number
      : F extends ScalarField<'decimal'>
        ? LosslessNumber
        : F extends ScalarField<'bool'>
          ? boolean
          : F extends ObjectField<infer S>
            ? StructValue<S>
            : F extends ListField<infer S>
              ? StructValue<S>[]
              : F extends IntMapField
                ? Record<string, number>
                : never;

/** The TypeScript type of a structure's canonical value: every field optional, as on the wire. */
export type StructValue<S> = S extends Struct<infer F> ? { [K in keyof F]?: FieldValue<F[K]> } : never;

function scalar<K extends ScalarKind>(kind: K) {
  return (xml: string, description: string, options: FieldOptions = {}): ScalarField<K> => ({ kind, xml, description, ...options });
}

export const text = scalar('string');
/** A .NET `int`: 32-bit signed. */
export const int = scalar('int');
/** A .NET `decimal`: exact, up to 28 decimal places; never a binary float. */
export const decimal = scalar('decimal');
export const bool = scalar('bool');
/** An ISO 8601 date or date-time, kept as written. */
export const dateTime = scalar('datetime');
/** A .NET `byte[]`: base64 text. */
export const binary = scalar('binary');

export function enumeration(enumName: EnumName, xml: string, description: string, options: FieldOptions = {}): EnumField {
  return { kind: 'enum', enumName, xml, description, ...options };
}

export function object<S extends AnyStruct>(struct: S, xml: string, description: string, options: FieldOptions = {}): ObjectField<S> {
  return { kind: 'object', struct, xml, description, ...options };
}

export function list<S extends AnyStruct>(struct: S, xml: string, description: string, options: FieldOptions = {}): ListField<S> {
  return { kind: 'list', struct, xml, description, ...options };
}

export function intMap(xml: string, entry: string, description: string, options: FieldOptions = {}): IntMapField {
  return { kind: 'intMap', xml, entry, description, ...options };
}

/** A .NET DataContract's member order when its members set `Order`: JSON names, every field once. */
interface StructOptions<F extends Fields> {
  readonly dataContractOrder?: ReadonlyArray<keyof F & string>;
}

const ordinal = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byXmlName = (fields: Fields): string[] => Object.keys(fields).sort((a, b) => ordinal((fields[a] as FieldSpec).xml, (fields[b] as FieldSpec).xml));

/**
 * The DataContract order of a class derived from another: the base class's members first, then
 * its own, each group ordinal by name (as DataContractSerializer writes and reads them).
 */
export function derivedOrder<B extends Fields, O extends Fields>(base: B, own: O): Array<(keyof B & string) | (keyof O & string)> {
  return [...byXmlName(base), ...byXmlName(own)];
}

export function struct<F extends Fields>(name: string, description: string, fields: F, options: StructOptions<F> = {}): Struct<F> {
  const ordered = Object.entries(fields).map(([json, spec], index) => Object.freeze({ json, spec, index, jsonKey: `${JSON.stringify(json)}:` }));
  const order = options.dataContractOrder;
  if (order && (order.length !== ordered.length || new Set(order).size !== order.length || order.some((json) => !(json in fields)))) {
    throw new Error(`${name}: dataContractOrder must name every field once`);
  }
  const xmlOrdered = order
    ? order.map((json) => ordered.find((field) => field.json === json) as NamedField)
    : [...ordered].sort((a, b) => ordinal(a.spec.xml, b.spec.xml));
  const byLowerName = new Map<string, NamedField>();
  const byName = new Map<string, NamedField>();
  for (const field of ordered) {
    for (const wireName of new Set([field.json.toLowerCase(), field.spec.xml.toLowerCase()])) {
      const clash = byLowerName.get(wireName);
      if (clash) throw new Error(`${name}: ${field.json} and ${clash.json} both answer to "${wireName}"`);
      byLowerName.set(wireName, field);
    }
    byName.set(field.json, field);
    byName.set(field.spec.xml, field);
  }
  const required = Object.freeze(ordered.filter((field) => field.spec.required === true));
  return Object.freeze({ name, description, fields, ordered: Object.freeze(ordered), xmlOrdered: Object.freeze(xmlOrdered), byLowerName, byName, required });
}

/** The field a wire name denotes, matched case-insensitively (exact spelling first: it is the common case). */
export function fieldNamed(struct: AnyStruct, wireName: string): NamedField | undefined {
  return struct.byName.get(wireName) ?? struct.byLowerName.get(wireName.toLowerCase());
}

/** A field path from the root (`['fees', 0, 'amount']`) in the naming of one wire format. */
export type FieldPath = ReadonlyArray<string | number>;

/** Writes a path of JSON names in the wire format's names: `Fees[0].Amount` (XML), `fees[0].amount` (JSON). */
export function wirePath(root: AnyStruct, path: FieldPath, format: 'json' | 'xml'): string {
  let out = '';
  let current: AnyStruct | null = root;
  for (const segment of path) {
    if (typeof segment === 'number') {
      out += `[${segment}]`;
      continue;
    }
    const field: FieldSpec | undefined = current?.fields[segment];
    const name = field && format === 'xml' ? field.xml : segment;
    out += out === '' ? name : `.${name}`;
    current = field && (field.kind === 'object' || field.kind === 'list') ? field.struct : null;
  }
  return out;
}
