import { ConnectionException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { isDatabaseUnreachable } from '../../src/db/unreachable';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnreachable', () => {
  it.each([
    ['a refused connection (node-postgres)', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a reset connection', withCode('read ECONNRESET', 'ECONNRESET')],
    ['the server shutting down (57P01)', withCode('terminating connection due to administrator command', '57P01')],
    ['the server starting up (57P03)', withCode('the database system is starting up', '57P03')],
    ['a connection exception (class 08)', withCode('connection failure', '08006')],
    ['a connection ended mid-query', new Error('Connection terminated unexpectedly')],
    [
      'no pool connection in time (knex)',
      new Error('Knex: Timeout acquiring a connection. The pool is probably full.'),
    ],
    ['the same wrapped by MikroORM', new ConnectionException(withCode('connect ECONNREFUSED', 'ECONNREFUSED'))],
    ['the same as a cause', new Error('query failed', { cause: withCode('connect ETIMEDOUT', 'ETIMEDOUT') })],
  ])('is true for %s', (_, error) => expect(isDatabaseUnreachable(error)).toBe(true));

  it.each([
    ['a constraint violation', new UniqueConstraintViolationException(withCode('duplicate key', '23505'))],
    ['a lock timeout (a statement of its own, not the connection)', withCode('canceling statement', '55P03')],
    ['a plain error', new Error('boom')],
    ['something that is not an error', 'ECONNREFUSED'],
  ])('is false for %s', (_, error) => expect(isDatabaseUnreachable(error)).toBe(false));
});
