/**
 * Reading and writing XML text safely: references decoded, element text and attribute values escaped (CR kept as a reference, characters XML cannot
 * carry replaced), and which names may be written as elements. Used by every XML the gateway
 * writes: translated answers and problem documents.
 *
 * Pure; imports nothing.
 */
const NEEDS_ESCAPE = /[&<>\r]|[^\t\n\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const TEXT_ESCAPES = new RegExp(NEEDS_ESCAPE.source, 'gu');
const TEXT_ESCAPE_MAP: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };

/**
 * Text content for an element. CR is written as a reference so a conforming parser does not
 * turn it into LF; a character XML cannot carry (only the core could send one: requests are
 * checked) becomes U+FFFD rather than an unparsable document.
 */
export function escapeXmlText(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(TEXT_ESCAPES, (c) => TEXT_ESCAPE_MAP[c] ?? '\uFFFD');
}

const ATTRIBUTE_ESCAPES = new RegExp(`["]|${NEEDS_ESCAPE.source}`, 'gu');

/** A double-quoted attribute value (a namespace name the vendor sent, say): text escapes and `"`. */
export function escapeXmlAttribute(value: string): string {
  return value.replace(ATTRIBUTE_ESCAPES, (c) => (c === '"' ? '&quot;' : (TEXT_ESCAPE_MAP[c] ?? '\uFFFD')));
}

/** XML 1.0 names without namespaces; keys of the core's unknown fields that are not one are not written. */
const XML_NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/;

export function isXmlName(name: string): boolean {
  return XML_NAME.test(name) && !/^xml/i.test(name);
}

/** Every '&': a reference, or (group unmatched) a stray ampersand. */
const ENTITY_REFERENCE = /&(?:(#x[0-9A-Fa-f]+|#[0-9]+|[A-Za-z][A-Za-z0-9._-]*);)?/g;
const PREDEFINED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function isXmlChar(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

/** Decodes the predefined entities and character references of parsed text; null when one is not allowed. */
export function decodeXmlText(raw: string): string | null {
  if (!raw.includes('&')) return raw;
  let failed = false;
  const decoded = raw.replace(ENTITY_REFERENCE, (_match, reference: string | undefined) => {
    if (reference === undefined) {
      failed = true;
      return '';
    }
    if (reference.startsWith('#')) {
      const code = reference[1] === 'x' ? parseInt(reference.slice(2), 16) : parseInt(reference.slice(1), 10);
      if (!isXmlChar(code)) {
        failed = true;
        return '';
      }
      return String.fromCodePoint(code);
    }
    const replacement = PREDEFINED[reference];
    if (replacement === undefined || !Object.hasOwn(PREDEFINED, reference)) {
      failed = true;
      return '';
    }
    return replacement;
  });
  return failed ? null : decoded;
}
