import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKETA_METHODS } from '../../src/carriers/packeta/client';
import { FAULTS, FIELD_REASONS, reasonForFields, type FaultOutcome } from '../../src/carriers/packeta/faults';
import { LABEL_FORMATS, positionsPerPage } from '../../src/carriers/packeta/label-formats';

const page = readFileSync(join(__dirname, '..', '..', 'docs', 'carriers', 'packeta.md'), 'utf8');

/** The rows of the Markdown table between `<!-- name:start -->` and `<!-- name:end -->`, as cells. */
function tableRows(name: string): string[][] {
  const section = page.split(`<!-- ${name}:start -->`)[1]!.split(`<!-- ${name}:end -->`)[0]!;
  return section
    .trim()
    .split('\n')
    .slice(2)
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

const described = (outcome: FaultOutcome): string =>
  outcome.kind === 'rejected'
    ? `refused: \`${outcome.reason}\``
    : outcome.kind === 'by_field'
      ? 'refused: by field (below)'
      : 'unavailable';

describe('Packeta tables and docs/carriers/packeta.md', () => {
  it('the page’s fault table is the adapter’s, row for row', () => {
    expect(tableRows('faults')).toEqual(
      FAULTS.map((f) => [`\`${f.fault}\``, f.raisedBy, f.meaning, described(f.outcome)]),
    );
  });

  it('every fault listed is raised by a method the service calls (WSDL portType), and no other', () => {
    const called = (raisedBy: string) =>
      raisedBy === 'every call' || PACKETA_METHODS.some((m) => new RegExp(`\\b${m}\\b`).test(raisedBy));
    expect(FAULTS.filter((f) => !called(f.raisedBy)).map((f) => f.fault)).toEqual([]);
  });

  it('the page’s field table is the adapter’s, row for row', () => {
    const rows = Object.entries(FIELD_REASONS).map(([field, reason]) => [
      `\`${field}\``,
      reason === 'address_id'
        ? '`pickup_point_invalid` to a pickup point, `service_not_available` for the home carrier'
        : `\`${reason}\``,
    ]);
    expect(tableRows('fields')).toEqual([...rows, ['any other', '`other`']]);
  });

  it.each([
    [[{ name: 'addressId', fault: 'x' }], true, 'pickup_point_invalid'],
    [[{ name: 'addressId', fault: 'x' }], false, 'service_not_available'],
    [
      [
        { name: 'note', fault: 'x' },
        { name: 'weight', fault: 'y' },
      ],
      false,
      'weight_out_of_range',
    ],
    [
      [
        { name: 'zip', fault: 'x' },
        { name: 'cod', fault: 'y' },
      ],
      false,
      'postcode_invalid',
    ],
    [[{ name: 'user_id', fault: 'not approved' }], false, 'account_not_permitted'],
    [[{ name: 'somethingNew', fault: 'x' }], false, 'other'],
    [[], false, 'other'],
  ])('fields %j (to a point: %s) are refused as %s', (fields, toPoint, reason) => {
    expect(reasonForFields(fields, toPoint)).toBe(reason);
  });

  it('label formats: the A4 layouts hold 4, 8 and 16 labels; the single ones 1', () => {
    expect(Object.fromEntries(LABEL_FORMATS.map((f) => [f.format, positionsPerPage(f)]))).toEqual({
      'A6 on A6': 1,
      'A7 on A7': 1,
      'A6 on A4': 4,
      'A7 on A4': 8,
      '105x35mm on A4': 16,
      'A8 on A8': 1,
    });
  });
});
