import { contractOf, ContractViolation } from '../helpers/contract';

// A small document with a relative server URL, the shape the served one has: one templated path, the shared
// headers and the Error schema. Answers are made up here; the integration suite checks real ones.
const document = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  servers: [{ url: '/v1' }],
  paths: {
    '/labels/{label_id}': {
      get: {
        responses: {
          '200': {
            description: 'ok',
            headers: {
              'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
              'Retry-After': { $ref: '#/components/headers/Retry-After' },
            },
            content: { 'application/json': { schema: { type: 'object', required: ['id'] } } },
          },
          '204': { description: 'nothing', headers: {} },
        },
      },
    },
    '/labels/summary': { get: { responses: { '200': { description: 'concrete path first' } } } },
  },
  components: {
    headers: {
      'X-Request-Id': { required: true, schema: { type: 'string', pattern: '^req_' } },
      'Retry-After': { schema: { type: 'integer', minimum: 0 } },
    },
    schemas: {
      Error: {
        type: 'object',
        required: ['error'],
        properties: { error: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } } },
      },
    },
  },
};

const contract = contractOf(document, 'http://127.0.0.1:4000');
const error = JSON.stringify({ error: { code: 'not_found' } });

function answer(
  method: string,
  path: string,
  status: number,
  text = '',
  headers: Record<string, string> = { 'x-request-id': 'req_1' },
) {
  const withType = text ? { 'content-type': 'application/json; charset=utf-8', ...headers } : headers;
  return { method, url: `http://127.0.0.1:4000${path}`, status, headers: new Headers(withType), text };
}

describe('contractOf', () => {
  it.each([
    ['a documented answer', answer('GET', '/v1/labels/lbl_1', 200, '{"id":"x"}')],
    [
      'an integer header given as digits',
      answer('GET', '/v1/labels/lbl_1', 200, '{"id":"x"}', { 'x-request-id': 'req_1', 'retry-after': '5' }),
    ],
    ['a documented empty answer', answer('GET', '/v1/labels/lbl_1', 204)],
    ['the concrete path, matched before the template', answer('GET', '/v1/labels/summary', 200)],
    ['404 on an unknown path', answer('GET', '/v1/nope', 404, error)],
    ['404 outside the server URL', answer('GET', '/v2/labels', 404, error)],
    ['400 on an unknown path', answer('GET', '/v1/nope?api_key=x', 400, error)],
    [
      '405 with Allow on a known path',
      answer('POST', '/v1/labels/lbl_1', 405, error, { 'x-request-id': 'req_1', allow: 'GET' }),
    ],
    ['anything on an operational path', answer('GET', '/healthz', 200, 'ok')],
  ])('passes %s', (_name, a) => {
    expect(() => contract.check(a)).not.toThrow();
  });

  it.each([
    ['an undocumented status', answer('GET', '/v1/labels/lbl_1', 201, '{"id":"x"}'), /status 201 is not documented/],
    ['a body outside its schema', answer('GET', '/v1/labels/lbl_1', 200, '{}'), /body breaks its schema/],
    [
      'a missing required header',
      answer('GET', '/v1/labels/lbl_1', 200, '{"id":"x"}', {}),
      /required header X-Request-Id/,
    ],
    [
      'a header outside its schema',
      answer('GET', '/v1/labels/lbl_1', 200, '{"id":"x"}', { 'x-request-id': 'req_1', 'retry-after': 'soon' }),
      /header Retry-After/,
    ],
    ['a body where none is documented', answer('GET', '/v1/labels/lbl_1', 204, '{}'), /a body/],
    ['200 on an unknown path', answer('GET', '/v1/nope', 200, error), /reaches no documented operation/],
    ['404 where the path has other methods', answer('POST', '/v1/labels/lbl_1', 404, error), /may answer only 405/],
    ['405 without Allow', answer('POST', '/v1/labels/lbl_1', 405, error), /without an Allow header/],
    ['an error body outside the Error schema', answer('GET', '/v1/nope', 404, '{"message":"x"}'), /Error schema/],
  ])('refuses %s', (_name, a, message) => {
    expect(() => contract.check(a)).toThrow(ContractViolation);
    expect(() => contract.check(a)).toThrow(message);
  });
});
