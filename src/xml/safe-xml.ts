/**
 * Safe XML parsing with fast-xml-parser, for bodies written by strangers.
 *
 * Reads XML text; returns the root element as fast-xml-parser's ordered node list, or throws
 * a 400 `invalid_request`. Defences, in order:
 * - any `<!DOCTYPE` or `<!ENTITY` is refused before parsing: no internal or external entity,
 *   so no billion laughs and no XXE; entity processing is off in the parser as well;
 * - the document must be well-formed (fast-xml-parser's validator; its parser alone accepts
 *   mismatched tags);
 * - nesting deeper than `maxDepth` elements is refused by the parser itself (`maxNestedTags`);
 * - names such as `__proto__` and `constructor` are refused or renamed by the parser, and the
 *   schema reader copies only the schema's own field names into fresh objects;
 * - every value stays text (`parseTagValue: false`) until the schema types it, so account
 *   numbers keep their leading zeros.
 * The five predefined entities and character references are decoded by the schema reader
 * (contracts/dto-xml-reader.ts), in text only, never inside CDATA. The parser drops namespace
 * prefixes and declarations; the root's own namespace is read from its start tag, so that an
 * answer can be written in the namespace the request used.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { GatewayError } from '../errors/error-catalogue';
import { decodeXmlText } from './xml-text';

/** fast-xml-parser's `preserveOrder` node: `{tag: children}`, `{'#text': text}` or `{'#cdata': [{'#text': text}]}`. */
/** fast-xml-parser's names for text and CDATA nodes (set in SafeXmlParser's options). */
export const TEXT = '#text';
export const CDATA = '#cdata';
/** Where the parser keeps an element's attributes beside its children (namespace prefixes removed). */
export const ATTRIBUTES = ':@';

export type XmlNode = Record<string, XmlNode[] | string>;

export interface XmlElement {
  readonly name: string;
  readonly children: XmlNode[];
  /** The root element's namespace name (its default `xmlns`, or the one its prefix is bound to); '' when none. */
  readonly namespace: string;
}

/** A start tag at a given place (sticky): its name, maybe prefixed, and its attributes (values may hold `>`). */
const START_TAG = /<([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/y;
const ATTRIBUTE = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** The namespace of a well-formed document's root element, from its start tag (after the prolog's declaration, comments and PIs). */
function rootNamespace(xml: string): string {
  let at = 0;
  for (;;) {
    at = xml.indexOf('<', at);
    if (at < 0) return '';
    const skipTo = xml.startsWith('<?', at) ? xml.indexOf('?>', at) + 2 : xml.startsWith('<!--', at) ? xml.indexOf('-->', at) + 3 : -1;
    if (skipTo === -1) break;
    if (skipTo < at + 2) return '';
    at = skipTo;
  }
  START_TAG.lastIndex = at;
  const tag = START_TAG.exec(xml);
  if (!tag) return '';
  const name = tag[1] as string;
  const colon = name.indexOf(':');
  const declaring = colon < 0 ? 'xmlns' : `xmlns:${name.slice(0, colon)}`;
  for (const attribute of (tag[2] ?? '').matchAll(ATTRIBUTE)) {
    if (attribute[1] === declaring) return decodeXmlText(attribute[2] ?? attribute[3] ?? '') ?? '';
  }
  return '';
}

const DECLARATIONS = /<!(DOCTYPE|ENTITY)/i;
function invalid(detail: string): GatewayError {
  return new GatewayError('invalid_request', detail);
}

export class SafeXmlParser {
  private readonly parser: XMLParser;

  constructor(readonly maxDepth: number) {
    this.parser = new XMLParser({
      preserveOrder: true,
      processEntities: false,
      htmlEntities: false,
      parseTagValue: false,
      // Attributes are read for one purpose: `i:nil="true"` (DataContractSerializer's null).
      ignoreAttributes: false,
      attributeNamePrefix: '',
      parseAttributeValue: false,
      allowBooleanAttributes: false,
      removeNSPrefix: true,
      trimValues: false,
      cdataPropName: CDATA,
      ignoreDeclaration: true,
      ignorePiTags: true,
      // The parser refuses a tag once it already has maxNestedTags open: that is depth maxNestedTags + 1.
      maxNestedTags: maxDepth - 1,
      jPath: false,
    });
  }

  /** The document's root element; throws a 400 naming what is wrong with the document. */
  parse(xml: string): XmlElement {
    if (DECLARATIONS.test(xml)) throw invalid('The XML body must not contain a DOCTYPE or ENTITY declaration.');
    const validation = XMLValidator.validate(xml);
    if (validation !== true) {
      const { msg, line, col } = validation.err;
      throw invalid(`The XML body is not well-formed: ${msg} (line ${line}, column ${col}).`);
    }
    let nodes: XmlNode[];
    try {
      nodes = this.parser.parse(xml) as XmlNode[];
    } catch (err) {
      const message = (err as Error).message;
      if (/nested tags/i.test(message)) throw invalid(`The XML body nests elements deeper than ${this.maxDepth} levels.`);
      throw invalid('The XML body uses a reserved element name.');
    }
    // The validator lets `<a/><b/>` and `<a/>text` through (and the parser drops trailing text):
    // exactly one root, nothing beside it.
    if (!/^\s*$/.test(xml.slice(xml.lastIndexOf('>') + 1))) throw invalid('The XML body must hold exactly one root element and nothing beside it.');
    let root: Omit<XmlElement, 'namespace'> | undefined;
    for (const node of nodes) {
      for (const name in node) {
        if (!Object.hasOwn(node, name) || name === ATTRIBUTES) continue;
        if (name === TEXT && /^\s*$/.test(node[name] as string)) continue;
        if (name === TEXT || name === CDATA || root !== undefined) throw invalid('The XML body must hold exactly one root element and nothing beside it.');
        root = { name, children: node[name] as XmlNode[] };
      }
    }
    if (root === undefined) throw invalid('The XML body has no root element.');
    return { ...root, namespace: rootNamespace(xml) };
  }
}
