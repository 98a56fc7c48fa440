/**
 * Writing XML text safely: element text escaped (CR kept as a reference, characters XML cannot
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

/** XML 1.0 names without namespaces; keys of the core's unknown fields that are not one are not written. */
const XML_NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/;

export function isXmlName(name: string): boolean {
  return XML_NAME.test(name) && !/^xml/i.test(name);
}
