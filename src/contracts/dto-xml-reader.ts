/**
 * Schema-driven XML → canonical value: walks the parsed element tree of a request body with
 * its DTO schema, matching element names case-insensitively against the schema's XML (and
 * JSON) names, typing each text value, and collecting every bad field.
 *
 * Reads the ordered node list from SafeXmlParser (values still raw text: entity processing is
 * off in the parser); decodes the predefined entities and character references here, in text
 * only, never inside CDATA, refusing any other reference. Returns fresh objects holding only
 * schema fields under their JSON names (so no element name can reach an object's prototype).
 * Elements the schema does not know are ignored, as a .NET deserializer ignores them; so are
 * read-only fields. A list field always yields an array, even with one item.
 */
import { GIVEN_TWICE, accept, acceptField, checkRequired, enumMessage, type ReadContext } from './reading';
import { Invalid, intKey, scalarFromXml, xmlIntValue } from './scalars';
import { fieldNamed, type AnyStruct, type EnumField, type FieldPath, type IntMapField, type NamedField } from './dto-schema';
import { ATTRIBUTES, CDATA, TEXT, type XmlNode } from '../xml/safe-xml';
import { decodeXmlText } from '../xml/xml-text';

const NOT_A_VALUE = new Invalid('must be a value, not elements');
const BAD_REFERENCE = new Invalid('uses an entity or character reference XML does not allow');

/**
 * `<AccountNumber i:nil="true"/>`: DataContractSerializer's null (XmlSerializer's `xsi:nil`).
 * Prefixes are removed by the parser, so `nil="true"` under any prefix counts.
 */
function isNil(node: XmlNode): boolean {
  const attributes = node[ATTRIBUTES] as Record<string, unknown> | undefined;
  return attributes !== undefined && attributes.nil === 'true';
}

/** The single key of a preserveOrder node: its element name, '#text' or '#cdata'. */
function nodeName(node: XmlNode): string | undefined {
  for (const name in node) if (Object.hasOwn(node, name)) return name;
  return undefined;
}

/** An element's text: text nodes decoded, CDATA taken literally, in document order. */
function elementText(children: XmlNode[]): string | Invalid {
  if (children.length === 1) {
    const only = children[0] as XmlNode;
    const raw = only[TEXT];
    if (typeof raw === 'string') return decodeXmlText(raw) ?? BAD_REFERENCE;
  }
  let out = '';
  for (const child of children) {
    const name = nodeName(child);
    if (name === TEXT) {
      const decoded = decodeXmlText(child[TEXT] as string);
      if (decoded === null) return BAD_REFERENCE;
      out += decoded;
    } else if (name === CDATA) {
      for (const part of child[CDATA] as XmlNode[]) out += (part[TEXT] as string | undefined) ?? '';
    } else if (name !== undefined) {
      return NOT_A_VALUE;
    }
  }
  return out;
}

/** Elements inside a structure or list; stray text is an error, whitespace between elements is not. */
function hasStrayText(node: XmlNode, name: string): boolean {
  if (name !== TEXT) return name === CDATA;
  const text = node[TEXT] as string;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x09 && c !== 0x0d) return true;
  }
  return false;
}

/**
 * Visits the elements among a structure's or list's children in document order, and says whether
 * any text stood between them (whitespace does not count), for the caller to refuse.
 */
function eachElement(children: XmlNode[], visit: (name: string, node: XmlNode) => void): boolean {
  let strayText = false;
  for (const node of children) {
    const name = nodeName(node);
    if (name === undefined) continue;
    if (name === TEXT || name === CDATA) strayText ||= hasStrayText(node, name);
    else visit(name, node);
  }
  return strayText;
}

export function readXmlStruct(struct: AnyStruct, children: XmlNode[], path: FieldPath, ctx: ReadContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const seen = new Uint8Array(struct.ordered.length);
  const strayText = eachElement(children, (name, node) => {
    const field = fieldNamed(struct, name);
    if (field === undefined || field.spec.readOnly) return;
    if (seen[field.index] === 1) {
      ctx.issues.push({ path: [...path, field.json], message: GIVEN_TWICE });
      return;
    }
    seen[field.index] = 1;
    // A null is an absent value, exactly as JSON's null: never an empty string.
    if (isNil(node)) return;
    const value = readXmlField(field, node[name] as XmlNode[], path, ctx);
    if (value !== undefined) out[field.json] = value;
  });
  if (strayText) ctx.issues.push({ path, message: 'must hold elements, not text' });
  checkRequired(struct, out, path, ctx);
  return out;
}

function readXmlField(field: NamedField, children: XmlNode[], parent: FieldPath, ctx: ReadContext): unknown {
  const spec = field.spec;
  switch (spec.kind) {
    case 'object':
      return readXmlStruct(spec.struct, children, [...parent, field.json], ctx);
    case 'list':
      return readXmlList(spec.struct, children, [...parent, field.json], ctx);
    case 'intMap':
      return readXmlIntMap(spec, children, [...parent, field.json], ctx);
    case 'enum':
      return readXmlEnum(spec, children, [...parent, field.json], ctx);
    default: {
      const textValue = elementText(children);
      return acceptField(textValue instanceof Invalid ? textValue : scalarFromXml(spec.kind, textValue), parent, field.json, ctx);
    }
  }
}

function readXmlEnum(spec: EnumField, children: XmlNode[], path: FieldPath, ctx: ReadContext): unknown {
  const textValue = elementText(children);
  if (textValue instanceof Invalid) return accept(textValue, path, ctx);
  const name = textValue.trim();
  if (name === '') return undefined;
  const value = ctx.enums.table(spec.enumName).valueOf(name);
  if (value === undefined) ctx.issues.push({ path, message: enumMessage(spec, ctx, 'xml') });
  return value;
}

/** Items of a list wrapper, each named after the item's type (`<Fees><FeeLineDto>…`). */
function readXmlList(item: AnyStruct, children: XmlNode[], path: FieldPath, ctx: ReadContext): unknown[] {
  const items: unknown[] = [];
  const itemName = item.name.toLowerCase();
  const strayText = eachElement(children, (name, node) => {
    if (name.toLowerCase() !== itemName) ctx.issues.push({ path: [...path, items.length], message: `must be a <${item.name}> element` });
    else items.push(readXmlStruct(item, node[name] as XmlNode[], [...path, items.length], ctx));
  });
  if (strayText) ctx.issues.push({ path, message: `must hold <${item.name}> elements, not text` });
  return items;
}

/** `<ArrearsDays><KeyValueOfintint><Key>101</Key><Value>12</Value></KeyValueOfintint>…`. */
function readXmlIntMap(spec: IntMapField, children: XmlNode[], path: FieldPath, ctx: ReadContext): Record<string, number> {
  const out: Record<string, number> = {};
  const entryName = spec.entry.toLowerCase();
  let index = 0;
  // Unlike a structure or a list, a map does not refuse text between its entries.
  eachElement(children, (name, node) => {
    const entryPath = [...path, index++];
    if (name.toLowerCase() !== entryName) {
      ctx.issues.push({ path: entryPath, message: `must be a <${spec.entry}> element` });
      return;
    }
    let keyText: string | Invalid | undefined;
    let valueText: string | Invalid | undefined;
    for (const part of node[name] as XmlNode[]) {
      const partName = nodeName(part)?.toLowerCase();
      if (partName === 'key') keyText = elementText(part[nodeName(part) as string] as XmlNode[]);
      else if (partName === 'value') valueText = elementText(part[nodeName(part) as string] as XmlNode[]);
    }
    const key = keyText === undefined ? new Invalid('is required') : keyText instanceof Invalid ? keyText : intKey(keyText);
    const value = valueText === undefined ? new Invalid('is required') : valueText instanceof Invalid ? valueText : xmlIntValue(valueText);
    const acceptedKey = accept(key, [...entryPath, 'Key'], ctx) as string | undefined;
    const acceptedValue = accept(value, [...entryPath, 'Value'], ctx) as number | undefined;
    if (acceptedKey === undefined || acceptedValue === undefined) return;
    if (Object.hasOwn(out, acceptedKey)) ctx.issues.push({ path: [...entryPath, 'Key'], message: GIVEN_TWICE });
    else out[acceptedKey] = acceptedValue;
  });
  return out;
}
