import { ConnectionException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { isDatabaseUnreachable, isTransientDatabaseError } from '../../src/db/unreachable';

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

describe('isTransientDatabaseError', () => {
  it.each([
    ['the database unreachable', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a lock not had in time (55P03)', withCode('canceling statement due to lock timeout', '55P03')],
    ['a statement timeout (57014)', withCode('canceling statement due to statement timeout', '57014')],
    ['a serialization failure (40001)', withCode('could not serialize access', '40001')],
    ['a deadlock (40P01)', withCode('deadlock detected', '40P01')],
    ['too many connections (53300)', withCode('sorry, too many clients already', '53300')],
    ['a lock timeout wrapped as a cause', new Error('take failed', { cause: withCode('lock timeout', '55P03') })],
  ])('is true for %s', (_, error) => expect(isTransientDatabaseError(error)).toBe(true));

  it.each([
    ['a missing relation (42P01)', withCode('relation "rate_limit_counters" does not exist', '42P01')],
    ['a syntax error (42601)', withCode('syntax error at or near "selec"', '42601')],
    ['a data exception (22P02)', withCode('invalid input syntax for type integer', '22P02')],
    ['a constraint violation', new UniqueConstraintViolationException(withCode('duplicate key', '23505'))],
    ['a plain error', new Error('boom')],
    ['something that is not an error', '55P03'],
  ])('is false for %s', (_, error) => expect(isTransientDatabaseError(error)).toBe(false));
});
