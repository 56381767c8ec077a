import fc from 'fast-check';
import { childOf, element, parseXml, renderXml, textOf, XmlSyntaxError } from '../../src/carriers/packeta/xml';

describe('Packeta XML', () => {
  it('reads a documented answer: declaration, layout whitespace, nested structs', () => {
    const root = parseXml(`<?xml version="1.0" encoding="utf-8"?>
<response>
    <status>ok</status>
    <result>
        <id>4154090000</id>
        <barcode>Z4154090000</barcode>
        <barcodeText>Z 415 4090 000</barcodeText>
    </result>
</response>`);
    expect(root.name).toBe('response');
    expect(textOf(root, 'status')).toBe('ok');
    const result = childOf(root, 'result')!;
    expect(result.text).toBe('');
    expect(result.children.map((c) => [c.name, c.text])).toEqual([
      ['id', '4154090000'],
      ['barcode', 'Z4154090000'],
      ['barcodeText', 'Z 415 4090 000'],
    ]);
  });

  it('decodes entities and CDATA, reads past comments and attributes, keeps empty elements', () => {
    const root = parseXml(
      '<a x="1"><!-- c --><b>Fő &amp; &lt;x&gt; &#x41;&#66;</b><c><![CDATA[<raw>]]></c><d/><e></e></a>',
    );
    expect(root.children.map((c) => [c.name, c.text])).toEqual([
      ['b', 'Fő & <x> AB'],
      ['c', '<raw>'],
      ['d', ''],
      ['e', ''],
    ]);
  });

  it.each([
    ['unclosed', '<a><b>x</b>'],
    ['mismatched', '<a><b>x</c></a>'],
    ['trailing content', '<a/><b/>'],
    ['not XML', '{"status":"ok"}'],
    ['unknown entity', '<a>&nbsp;</a>'],
    ['empty', ''],
  ])('refuses %s', (_, text) => {
    expect(() => parseXml(text)).toThrow(XmlSyntaxError);
  });

  it('reads back what it writes, for any text', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const written = renderXml(element('root', [element('a', a), element('b', [element('c', b)])]));
        const read = parseXml(written);
        expect(textOf(read, 'a')).toBe(a);
        expect(textOf(childOf(read, 'b')!, 'c')).toBe(b);
      }),
    );
  });
});
