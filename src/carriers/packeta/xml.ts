/**
 * The XML Packeta's REST endpoint speaks: elements, text and nothing else that matters (no attributes, no namespaces,
 * no mixed content). Both the adapter and the fake Packeta read and write it here, so neither needs an XML library for
 * a format this small. Attributes, comments, processing instructions and a DOCTYPE are read past; CDATA is text.
 */

export interface XmlElement {
  name: string;
  /** The text of a leaf, entities decoded; '' for an element with children. */
  text: string;
  children: XmlElement[];
}

export class XmlSyntaxError extends Error {
  override readonly name = 'XmlSyntaxError';
}

/** A leaf with text, or an element of children. */
export function element(name: string, content: string | XmlElement[] = ''): XmlElement {
  return typeof content === 'string' ? { name, text: content, children: [] } : { name, text: '', children: content };
}

/** The children of `fields` with a value, in order: `null`/`undefined` leave the element out. */
export function elements(fields: Record<string, string | number | boolean | XmlElement[] | null | undefined>) {
  const out: XmlElement[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === null || value === undefined) continue;
    out.push(element(name, Array.isArray(value) ? value : String(value)));
  }
  return out;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export const escapeXml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

function write(node: XmlElement, out: string[]): void {
  out.push(`<${node.name}>`);
  if (node.children.length > 0) for (const child of node.children) write(child, out);
  else out.push(escapeXml(node.text));
  out.push(`</${node.name}>`);
}

/** The document with its declaration, UTF-8. */
export function renderXml(root: XmlElement): string {
  const out = ['<?xml version="1.0" encoding="utf-8"?>\n'];
  write(root, out);
  return out.join('');
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, code: string) => {
    if (code.startsWith('#x')) return String.fromCodePoint(parseInt(code.slice(2), 16));
    if (code.startsWith('#')) return String.fromCodePoint(parseInt(code.slice(1), 10));
    const named = NAMED[code];
    if (named === undefined) throw new XmlSyntaxError(`unknown entity ${whole}`);
    return named;
  });
}

const NAME = /^[A-Za-z_][\w.:-]*/;

class Reader {
  at = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new XmlSyntaxError(`${what} at offset ${this.at}`);
  }

  /** Comments, processing instructions, a DOCTYPE and whitespace between elements. */
  skipMisc(): void {
    for (;;) {
      const rest = this.text.slice(this.at);
      const space = /^\s+/.exec(rest);
      if (space) this.at += space[0].length;
      else if (rest.startsWith('<?')) this.skipPast('?>');
      else if (rest.startsWith('<!--')) this.skipPast('-->');
      else if (rest.startsWith('<!DOCTYPE')) this.skipPast('>');
      else return;
    }
  }

  skipPast(end: string): void {
    const index = this.text.indexOf(end, this.at);
    if (index < 0) this.fail(`unterminated construct (no ${end})`);
    this.at = index + end.length;
  }

  /** `<name attr="…">` or `<name/>`; the attributes are read past. */
  openTag(): { name: string; empty: boolean } {
    if (this.text[this.at] !== '<') this.fail('expected an element');
    this.at += 1;
    const name = NAME.exec(this.text.slice(this.at))?.[0] ?? this.fail('expected an element name');
    this.at += name.length;
    const close = /^(?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*(\/?)>/.exec(this.text.slice(this.at));
    if (!close) this.fail(`malformed tag <${name}>`);
    this.at += close[0].length;
    return { name, empty: close[1] === '/' };
  }

  element(): XmlElement {
    const { name, empty } = this.openTag();
    const node: XmlElement = { name, text: '', children: [] };
    if (empty) return node;
    let text = '';
    for (;;) {
      const rest = this.text.slice(this.at);
      if (rest.length === 0) this.fail(`unclosed <${name}>`);
      if (rest.startsWith('</')) {
        const end = new RegExp(`^</${name.replace(/[.]/g, '\\.')}\\s*>`).exec(rest);
        if (!end) this.fail(`mismatched closing tag inside <${name}>`);
        this.at += end[0].length;
        // Whitespace around child elements is layout, not text.
        node.text = node.children.length > 0 && text.trim() === '' ? '' : text;
        return node;
      }
      if (rest.startsWith('<![CDATA[')) {
        const index = this.text.indexOf(']]>', this.at);
        if (index < 0) this.fail('unterminated CDATA');
        text += this.text.slice(this.at + 9, index);
        this.at = index + 3;
      } else if (rest.startsWith('<!--') || rest.startsWith('<?')) {
        this.skipPast(rest.startsWith('<!--') ? '-->' : '?>');
      } else if (rest.startsWith('<')) {
        node.children.push(this.element());
      } else {
        const next = rest.indexOf('<');
        const chunk = next < 0 ? rest : rest.slice(0, next);
        text += decodeEntities(chunk);
        this.at += chunk.length;
      }
    }
  }
}

/** The root element of a document; throws XmlSyntaxError for anything that is not one well-formed element. */
export function parseXml(text: string): XmlElement {
  const reader = new Reader(text.replace(/^\uFEFF/, ''));
  reader.skipMisc();
  const root = reader.element();
  reader.skipMisc();
  if (reader.at !== reader.text.length) reader.fail('content after the root element');
  return root;
}

/** The first child named `name`. */
export const childOf = (node: XmlElement, name: string): XmlElement | undefined =>
  node.children.find((c) => c.name === name);

/** The text of the first child named `name`, or null when there is none. */
export const textOf = (node: XmlElement, name: string): string | null => childOf(node, name)?.text ?? null;
