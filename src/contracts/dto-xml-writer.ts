/**
 * Schema-driven JSON → XML for receipts: writes a canonical value, or the core's answer as
 * lossless-json parsed it, as the vendor's XML document.
 *
 * Reads the value and the enum tables; returns XML text. The root element is the DTO name, in
 * the namespace it is given (the request's, so a DataContractSerializer client reads back the
 * contract it sent; none when empty); known fields are written in DataContract order (ordinal by
 * name unless the struct sets one; DataContractSerializer skips members out of order) under
 * their PascalCase .NET names, lists as a wrapper with one item element per entry named after
 * the item's type, enums as names, ArrearsDays as `KeyValueOfintint` entries in .NET's
 * Serialization/Arrays namespace; numbers keep the exact text the core wrote.
 * Fields the schema does not know follow, under their own names (an array as a wrapper of
 * `<Item>` elements); a key that is not a valid XML name cannot be written and is left out.
 * A known field the answer holds as null is written `<Name i:nil="true"/>`, with the XML
 * Schema instance namespace declared on the root, so a DataContractSerializer or XmlSerializer
 * client reads null (not ""); a field the answer leaves out stays out.
 * Built by hand from the schema, not by a generic builder, because it needs the schema's
 * names and order anyway and it keeps translation cheaper than a generic parse + build.
 */
import { isLosslessNumber } from 'lossless-json';
import type { ReceiptEnums } from './enums';
import { fieldNamed, type AnyStruct, type FieldSpec, type IntMapField, type NamedField } from './dto-schema';
import { escapeXmlAttribute, escapeXmlText, isXmlName } from '../xml/xml-text';

type JsonObject = Record<string, unknown>;

const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';
const XSI_NAMESPACE = 'http://www.w3.org/2001/XMLSchema-instance';
/** Where DataContractSerializer puts the entries of a dictionary (and the items of a primitive list). */
export const ARRAYS_NAMESPACE = 'http://schemas.microsoft.com/2003/10/Serialization/Arrays';

/** What writing one document found on the way: whether a nil needs the `i` prefix declared. */
interface Written {
  nil: boolean;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return String(value);
  if (isLosslessNumber(value)) return value.value;
  return undefined;
}

function element(name: string, content: string): string {
  return content === '' ? `<${name}/>` : `<${name}>${content}</${name}>`;
}

export class XmlWriter {
  constructor(private readonly enums: ReceiptEnums) {}

  /** A whole document: declaration and root element named after the DTO, in `namespace` when not empty. */
  document(struct: AnyStruct, value: JsonObject, namespace = ''): string {
    const written: Written = { nil: false };
    const content = this.structContent(struct, value, written);
    const declarations = (namespace === '' ? '' : ` xmlns="${escapeXmlAttribute(namespace)}"`) + (written.nil ? ` xmlns:i="${XSI_NAMESPACE}"` : '');
    const root = struct.name + declarations;
    return XML_DECLARATION + (content === '' ? `<${root}/>` : `<${root}>${content}</${struct.name}>`);
  }

  private structContent(struct: AnyStruct, value: JsonObject, written: Written): string {
    // Values by field index, so known fields come out in schema order whatever the core's order.
    const known: unknown[] = new Array(struct.ordered.length);
    let unknown = '';
    for (const key of Object.keys(value)) {
      const field = fieldNamed(struct, key);
      if (field) known[field.index] = value[key];
      else if (isXmlName(key)) unknown += this.generic(key, value[key]);
    }
    let out = '';
    for (const { index, spec } of struct.xmlOrdered as readonly NamedField[]) {
      const fieldValue = known[index];
      if (fieldValue === null) {
        out += `<${spec.xml} i:nil="true"/>`;
        written.nil = true;
      } else if (fieldValue !== undefined) {
        out += this.field(spec, fieldValue, written);
      }
    }
    return out + unknown;
  }

  private field(spec: FieldSpec, value: unknown, written: Written): string {
    if (value === null || value === undefined) return '';
    switch (spec.kind) {
      case 'object':
        return isObject(value) ? element(spec.xml, this.structContent(spec.struct, value, written)) : this.generic(spec.xml, value);
      case 'list':
        if (!Array.isArray(value)) return this.generic(spec.xml, value);
        return element(
          spec.xml,
          value
            .map((item: unknown) =>
              isObject(item) ? element(spec.struct.name, this.structContent(spec.struct, item, written)) : this.generic(spec.struct.name, item),
            )
            .join(''),
        );
      case 'intMap': {
        if (!isObject(value)) return this.generic(spec.xml, value);
        const entries = this.intMapContent(spec, value);
        return entries === '' ? `<${spec.xml}/>` : `<${spec.xml} xmlns:a="${ARRAYS_NAMESPACE}">${entries}</${spec.xml}>`;
      }
      case 'enum': {
        const number = typeof value === 'number' ? value : isLosslessNumber(value) ? Number(value.value) : undefined;
        const name = number === undefined ? undefined : this.enums.table(spec.enumName).nameOf(number);
        return name === undefined ? this.generic(spec.xml, value) : element(spec.xml, name);
      }
      default:
        return this.generic(spec.xml, value);
    }
  }

  private intMapContent(spec: IntMapField, value: JsonObject): string {
    let out = '';
    for (const key of Object.keys(value)) {
      const days = scalarText(value[key]);
      out += element(`a:${spec.entry}`, `<a:Key>${escapeXmlText(key)}</a:Key>${days === undefined ? '' : `<a:Value>${escapeXmlText(days)}</a:Value>`}`);
    }
    return out;
  }

  /** Any value without schema guidance: scalars as text, objects by their own keys, arrays as `<Item>`s. */
  private generic(name: string, value: unknown): string {
    if (value === null || value === undefined) return '';
    const scalar = scalarText(value);
    if (scalar !== undefined) return element(name, escapeXmlText(scalar));
    if (Array.isArray(value)) return element(name, value.map((item: unknown) => this.generic('Item', item)).join(''));
    let out = '';
    for (const key of Object.keys(value as JsonObject)) if (isXmlName(key)) out += this.generic(key, (value as JsonObject)[key]);
    return element(name, out);
  }
}
