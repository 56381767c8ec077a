/**
 * Splits a JSON text whose root is an array of objects into the objects' texts as its chunks arrive, so a feed of
 * 100,000 points (over 100 MB) is read one point at a time instead of parsed whole. It tracks only nesting and
 * strings; each object's text is then given to `JSON.parse`, which judges it. Anything around the objects other than
 * whitespace and commas, or a text that ends before the array does, is malformed.
 */
export class MalformedFeedError extends Error {
  override readonly name = 'MalformedFeedError';
}

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0xfeff;

export class JsonArraySplitter {
  /** `before`: the root's `[` not yet seen; `between`: inside the root, between elements; `element`; `after`. */
  private place: 'before' | 'between' | 'element' | 'after' = 'before';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private pending = '';
  private offset = 0;

  /** The texts of the objects this chunk completes, in order. */
  push(chunk: string): string[] {
    const done: string[] = [];
    let start = this.place === 'element' ? 0 : -1;
    for (let i = 0; i < chunk.length; i += 1) {
      const c = chunk.charCodeAt(i);
      if (this.place === 'element') {
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (c === BACKSLASH) this.escaped = true;
          else if (c === QUOTE) this.inString = false;
          continue;
        }
        if (c === QUOTE) this.inString = true;
        else if (c === OPEN_OBJECT || c === OPEN_ARRAY) this.depth += 1;
        else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
          this.depth -= 1;
          if (this.depth === 0) {
            done.push(this.pending + chunk.slice(start, i + 1));
            this.pending = '';
            this.place = 'between';
          }
        }
        continue;
      }
      if (isSpace(c)) continue;
      if (this.place === 'before' && c === OPEN_ARRAY) this.place = 'between';
      else if (this.place === 'between' && c === COMMA) continue;
      else if (this.place === 'between' && c === CLOSE_ARRAY) this.place = 'after';
      else if (this.place === 'between' && c === OPEN_OBJECT) {
        this.place = 'element';
        this.depth = 1;
        start = i;
      } else throw new MalformedFeedError(this.unexpected(c, i));
    }
    if (this.place === 'element') this.pending += chunk.slice(start);
    this.offset += chunk.length;
    return done;
  }

  /** Checks that the array was complete. */
  end(): void {
    if (this.place !== 'after')
      throw new MalformedFeedError(
        this.place === 'before' ? 'the feed is empty' : 'the feed ends inside its array (a cut-off download?)',
      );
  }

  private unexpected(c: number, i: number): string {
    const where =
      this.place === 'before' ? 'before the array' : this.place === 'after' ? 'after the array' : 'between points';
    return `unexpected ${JSON.stringify(String.fromCharCode(c))} ${where} at character ${this.offset + i}`;
  }
}
