import { allowedSql } from '../../src/creation/transitions/phase-sql';
import {
  CREATION_EVENT_KINDS,
  CREATION_POSITIONS,
  nextPosition,
  placeOf,
  type CreationEvent,
  type CreationEventKind,
} from '../../src/domain/creation-phases';
import { startTestApp, type TestApp } from '../helpers/test-app';

// The record's guards are the phase table rendered as SQL (src/creation/transitions/phase-sql.ts): PostgreSQL allows an
// event at exactly the positions where the table allows it, so the record and the workflow's state refuse alike.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

/** An event of the kind, enough for `nextPosition` (what it records does not decide where it is allowed). */
const anEvent = (kind: CreationEventKind) => ({ kind, status: 'failed' }) as unknown as CreationEvent;

describe('the phase table as the record’s SQL', () => {
  it.each(CREATION_EVENT_KINDS)('%s is allowed by PostgreSQL where the table allows it', async (kind) => {
    // Every position, and a `processing` record without a phase (rows written before phases; tests' fixtures).
    const rows = [...CREATION_POSITIONS.map((p) => placeOf(p)), { status: 'processing', phase: null }];
    const values = rows.map(() => '(?::text, ?::text)').join(', ');
    const params = rows.flatMap((r) => [r.status, r.phase]);
    const [bare, aliased] = await Promise.all(
      [
        [allowedSql(kind), 'v'],
        [allowedSql(kind, 'c.'), 'c'],
      ].map(([guard, alias]) =>
        app.orm.em
          .fork()
          .execute<Array<{ allowed: boolean | null }>>(
            `select (${guard}) as allowed from (values ${values}) as ${alias}(status, phase)`,
            params,
          ),
      ),
    );
    const expected = [...CREATION_POSITIONS, 'queued' as const].map((p) => nextPosition(p, anEvent(kind)) !== null);
    expect(bare!.map((r) => r.allowed === true)).toEqual(expected);
    expect(aliased!.map((r) => r.allowed === true)).toEqual(expected);
  });
});
