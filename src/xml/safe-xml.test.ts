/** The safe XML parser: declarations refused, well-formedness, the nesting limit, reserved names, references. */
import { GatewayError } from '../errors/error-catalogue';
import { SafeXmlParser } from './safe-xml';
import { escapeXmlText, isXmlName } from './xml-text';
import { decodeXmlText } from './xml-text';

const parser = new SafeXmlParser(32);

function refusal(xml: string): string {
  try {
    parser.parse(xml);
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).status).toBe(400);
    return (err as GatewayError).detail;
  }
  throw new Error('expected the document to be refused');
}

const nested = (depth: number): string => '<a>'.repeat(depth) + '1' + '</a>'.repeat(depth);

describe('SafeXmlParser', () => {
  it('returns the root element with its children in document order, values as text', () => {
    const root = parser.parse('<?xml version="1.0"?><Root><B>00012</B><A>0.10</A><B>2</B></Root>');
    expect(root.name).toBe('Root');
    expect(root.children).toEqual([{ B: [{ '#text': '00012' }] }, { A: [{ '#text': '0.10' }] }, { B: [{ '#text': '2' }] }]);
  });

  it('refuses any DOCTYPE or ENTITY declaration before parsing', () => {
    expect(refusal('<!DOCTYPE r [<!ENTITY x "y">]><r>&x;</r>')).toBe('The XML body must not contain a DOCTYPE or ENTITY declaration.');
    expect(refusal('<!doctype r SYSTEM "file:///etc/passwd"><r/>')).toMatch(/DOCTYPE/);
    expect(refusal('<r><!ENTITY x "y"></r>')).toMatch(/ENTITY/);
  });

  it('refuses documents that are not well-formed', () => {
    expect(refusal('<a><b>1</c></a>')).toMatch(/^The XML body is not well-formed: .*\(line 1, column \d+\)\.$/);
    expect(refusal('<a><b>1</b>')).toMatch(/not well-formed/);
    expect(refusal('<a/><b/>')).toBe('The XML body must hold exactly one root element and nothing beside it.');
    expect(refusal('<a>1</a><b/>')).toMatch(/exactly one root/);
    expect(refusal('<a/>text')).toMatch(/exactly one root/);
    expect(refusal('just text')).toMatch(/not well-formed/);
    expect(refusal('<a>& x</a>')).toMatch(/not well-formed/);
  });

  it('accepts nesting 32 levels deep and refuses 33', () => {
    expect(parser.parse(nested(32)).name).toBe('a');
    expect(refusal(nested(33))).toBe('The XML body nests elements deeper than 32 levels.');
    expect(new SafeXmlParser(8).parse(nested(8)).name).toBe('a');
    expect(() => new SafeXmlParser(8).parse(nested(9))).toThrow(/deeper than 8/);
  });

  it('refuses prototype names as elements and leaves Object.prototype alone', () => {
    expect(refusal('<r><__proto__><polluted>1</polluted></__proto__></r>')).toBe('The XML body uses a reserved element name.');
    expect(refusal('<r><constructor><prototype><polluted>1</polluted></prototype></constructor></r>')).toMatch(/reserved/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("keeps references undecoded for the reader, drops namespace prefixes, and keeps an element's attributes beside it", () => {
    const root = parser.parse('<d:r xmlns:d="urn:x" xmlns:i="urn:i"><d:a i:nil="true">&amp;&#65;</d:a></d:r>');
    expect(root).toEqual({ name: 'r', children: [{ a: [{ '#text': '&amp;&#65;' }], ':@': { nil: 'true' } }], namespace: 'urn:x' });
  });

  it.each([
    [
      'a default namespace',
      '<r xmlns="http://schemas.datacontract.org/2004/07/Core.Dto" xmlns:i="urn:i"/>',
      'http://schemas.datacontract.org/2004/07/Core.Dto',
    ],
    ['the namespace its prefix is bound to, not the default', "<d:r xmlns='urn:default' xmlns:d='urn:d&amp;x'><a/></d:r>", 'urn:d&x'],
    ['after a declaration, comments and PIs that hold tags', '<?xml version="1.0"?><!-- <x xmlns="urn:no"> --><?pi <y>?><r a=">" xmlns="urn:yes"/>', 'urn:yes'],
    ['none', '<r><a xmlns="urn:child"/></r>', ''],
  ])("reads the root element's namespace: %s", (_case, xml, namespace) => {
    expect(parser.parse(xml).namespace).toBe(namespace);
  });
});

describe('decodeXmlText', () => {
  it('decodes the five predefined entities and character references', () => {
    expect(decodeXmlText('&lt;&gt;&amp;&quot;&apos;&#65;&#x42;&#x1F600;')).toBe('<>&"\'AB\u{1F600}');
    expect(decodeXmlText('plain')).toBe('plain');
  });

  it('refuses undefined entities, references to characters XML forbids, and stray ampersands', () => {
    for (const text of ['&foo;', '&#9999999;', '&#0;', '&#xD800;', '&#xFFFE;', 'a & b', '&#;', '&constructor;', '&__proto__;']) {
      expect(decodeXmlText(text)).toBeNull();
    }
  });
});

describe('escapeXmlText and isXmlName', () => {
  it('escapes markup, keeps CR as a reference and replaces characters XML cannot carry', () => {
    expect(escapeXmlText('a<b>&c\r\n\u0000\ud800\u{1F600}')).toBe('a&lt;b&gt;&amp;c&#13;\n\uFFFD\uFFFD\u{1F600}');
    expect(escapeXmlText('nothing to do')).toBe('nothing to do');
  });

  it('accepts XML names only', () => {
    expect(isXmlName('postedBalance')).toBe(true);
    expect(isXmlName('_x.y-z')).toBe(true);
    expect(isXmlName('1abc')).toBe(false);
    expect(isXmlName('a b')).toBe(false);
    expect(isXmlName('xmlThing')).toBe(false);
  });
});
