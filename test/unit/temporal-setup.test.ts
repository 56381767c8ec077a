import { formatDuration } from '../../src/duration';
import { projectSearchAttributes, workflowSearchAttributes } from '../../src/temporal/namespace-setup';

describe('the search attributes the setup step registers', () => {
  it('are exactly the ones the workflows set, with the same types (what the worker checks at start)', () => {
    expect(new Map([...projectSearchAttributes()].sort())).toEqual(new Map([...workflowSearchAttributes()].sort()));
  });

  it('reads every type name of the dev server spelling and refuses an unknown one', () => {
    expect([...projectSearchAttributes({ A: 'Keyword', B: 'KeywordList', C: 'Datetime', D: 'Int' })]).toEqual([
      ['A', 'KEYWORD'],
      ['B', 'KEYWORD_LIST'],
      ['C', 'DATETIME'],
      ['D', 'INT'],
    ]);
    expect(() => projectSearchAttributes({ A: 'Keywords' })).toThrow('search attribute A: unknown type Keywords');
  });
});

describe('formatDuration', () => {
  it.each([
    [7 * 86_400_000, '7d'],
    [36 * 3_600_000, '36h'],
    [90_000, '90s'],
    [1500, '1500ms'],
    [0, '0ms'],
  ])('%d ms = %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});
