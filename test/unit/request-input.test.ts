import { z } from 'zod';
import { ApiError } from '../../src/http/api-error';
import { MAX_JSON_DEPTH, jsonNestsDeeperThan } from '../../src/http/body';
import { refusalOfMalformedRequest } from '../../src/http/malformed-request';
import { isUnrepresentable, parseInput, unrepresentableIn } from '../../src/http/validation';

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;

describe('JSON nesting depth, counted over the text', () => {
  it.each<[string, string, number, boolean]>([
    ['a flat object', '{"a":1}', 1, false],
    ['objects at the limit', '{"a":{"b":{}}}', 3, false],
    ['objects over the limit', '{"a":{"b":{}}}', 2, true],
    ['arrays at the limit', nested(32), 32, false],
    ['arrays over the limit', nested(33), 32, true],
    ['brackets in a string', `{"a":"${nested(50)}"}`, 1, false],
    ['an escaped quote before brackets', `{"a":"\\"${nested(50, '[', '')}"}`, 1, false],
    ['an escaped backslash ending a string', `{"a":"\\\\",${'"b":{'.repeat(3)}1}}}}`, 3, true],
    ['siblings do not add up', '[[],[],[],[]]', 2, false],
    ['malformed text, deep', nested(40, '{', ''), 32, true],
  ])('%s', (_, text, max, deeper) => {
    expect(jsonNestsDeeperThan(text, max)).toBe(deeper);
  });

  it('bounds bodies to 32 levels', () => {
    expect(MAX_JSON_DEPTH).toBe(32);
  });
});

describe('NUL and lone surrogates', () => {
  it.each<[string, boolean]>([
    ['plain', false],
    ['Příliš žluťoučký kůň', false],
    ['box 📦', false],
    ['a\u0000b', true],
    ['\ud800', true],
    ['x\udfff', true],
    ['\udc00\ud800', true],
    ['📦'.slice(0, 1), true],
    ['📦'.slice(1), true],
  ])('%j -> %s', (value, refused) => {
    expect(isUnrepresentable(value)).toBe(refused);
  });

  it('finds the first in values and keys, with its path', () => {
    expect(unrepresentableIn({ a: 'ok', b: [1, 'x', { c: 'y\u0000' }] })).toEqual({
      path: ['b', 2, 'c'],
      text: 'y\u0000',
    });
    expect(unrepresentableIn({ ok: { 'k\ud800': 1 } })).toEqual({ path: ['ok', 'k\ud800'], text: 'k\ud800' });
    expect(unrepresentableIn({ a: ['b', 2, null, true] })).toBeNull();
  });

  function refusal(value: unknown, location: 'query' | 'body'): Record<string, unknown> {
    try {
      parseInput(z.object({}).passthrough(), value, location);
    } catch (error) {
      if (error instanceof ApiError) return { code: error.code, status: error.status, ...error.details };
      throw error;
    }
    throw new Error('no refusal');
  }

  it('refuses them before the schema, naming the parameter as JSON spells it', () => {
    expect(refusal({ client_reference: 'a\u0000' }, 'query')).toMatchObject({
      code: 'validation_error',
      status: 422,
      parameter: 'client_reference',
    });
    expect(refusal({ carrier_options: { 'x\u0000': 1 } }, 'body')).toMatchObject({
      parameter: 'carrier_options.x\\u0000',
    });
    expect(refusal({ parcels: [{ note: '\ud800' }] }, 'body')).toMatchObject({ parameter: 'parcels.0.note' });
  });
});

describe('requests Node’s HTTP parser refuses', () => {
  const packet = (text: string) => Buffer.from(text, 'latin1');
  const answer = (code: string, text: string, at?: number) => {
    const refusal = refusalOfMalformedRequest(
      { code, rawPacket: packet(text), bytesParsed: at ?? text.length },
      16_384,
    );
    return refusal && { status: refusal.status, code: refusal.code, ...refusal.details };
  };
  const AFTER_FIX = { retry: 'after_fix', next_action: 'fix_and_retry' };

  it('names the largest header of a header section over the limit', () => {
    const text = `GET /v1/shop HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000)}`;
    expect(answer('HPE_HEADER_OVERFLOW', text)).toEqual({
      status: 422,
      code: 'validation_error',
      header: 'X-Big',
      max_bytes: 16_384,
      ...AFTER_FIX,
    });
  });

  it('names the query parameter of a request line over the limit; a path that long is no endpoint', () => {
    expect(answer('HPE_HEADER_OVERFLOW', `GET /v1/labels?status=ready&order_name=${'x'.repeat(17_000)}`)).toEqual({
      status: 422,
      code: 'validation_error',
      parameter: 'order_name',
      max_bytes: 16_384,
      ...AFTER_FIX,
    });
    expect(answer('HPE_HEADER_OVERFLOW', `GET /v1/labels/${'x'.repeat(17_000)}`)).toEqual({
      status: 404,
      code: 'not_found',
    });
  });

  it('compares a complete long request line with the headers', () => {
    const text = `GET /v1/labels?order_name=${'x'.repeat(9_000)} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(8_000)}`;
    expect(answer('HPE_HEADER_OVERFLOW', text)).toMatchObject({ parameter: 'order_name' });
  });

  it('answers raw bytes in the path with 404 and in the query with 422 naming the parameter', () => {
    expect(answer('HPE_INVALID_URL', 'GET /v1/\xff HTTP/1.1\r\nHost: x\r\n\r\n', 8)).toEqual({
      status: 404,
      code: 'not_found',
    });
    const query = 'GET /v1/labels?status=ready&batch_id=b\xff HTTP/1.1\r\n\r\n';
    expect(answer('HPE_INVALID_URL', query, query.indexOf('\xff'))).toEqual({
      status: 422,
      code: 'validation_error',
      parameter: 'batch_id',
      ...AFTER_FIX,
    });
  });

  it.each([
    ['HPE_INVALID_HEADER_TOKEN', 'X-A: a\x00b', 'X-A'],
    ['HPE_INVALID_HEADER_TOKEN', 'X A: b', 'X A'],
    ['HPE_CR_EXPECTED', 'X-A: a\nb', 'X-A'],
    ['HPE_INVALID_CONTENT_LENGTH', 'Content-Length: abc', 'Content-Length'],
  ])('%s names the header (%j)', (code, line, header) => {
    const text = `POST /v1/labels HTTP/1.1\r\nHost: x\r\n${line}\r\n\r\n`;
    const at = text.indexOf(line) + line.length - 1;
    expect(answer(code, text, at)).toEqual({ status: 422, code: 'validation_error', header, ...AFTER_FIX });
  });

  it('leaves a broken body to the app, which has its request', () => {
    const text = 'POST /v1/labels HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n';
    expect(answer('HPE_INVALID_CHUNK_SIZE', text, text.indexOf('zz'))).toBeNull();
  });

  it('says only that the request is not HTTP when nothing can be named', () => {
    expect(answer('HPE_INVALID_METHOD', 'G@T / HTTP/1.1\r\n\r\n', 1)).toEqual({
      status: 422,
      code: 'validation_error',
      ...AFTER_FIX,
    });
    // A later piece of a request: the request line is not in it.
    expect(answer('HPE_HEADER_OVERFLOW', 'a'.repeat(20_000))).toEqual({
      status: 422,
      code: 'validation_error',
      max_bytes: 16_384,
      ...AFTER_FIX,
    });
  });

  it('gives no answer to a timeout or a reset', () => {
    expect(refusalOfMalformedRequest({ code: 'ERR_HTTP_REQUEST_TIMEOUT' }, 16_384)).toBeNull();
    expect(refusalOfMalformedRequest({ code: 'ECONNRESET' }, 16_384)).toBeNull();
  });
});
