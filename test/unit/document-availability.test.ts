import type { DocumentMode } from '../../src/domain/carrier-catalog';
import {
  deriveDocument,
  documentStableThroughMs,
  type DocumentAvailabilityInput,
} from '../../src/domain/document-availability';

const CREATED = new Date('2026-10-01T12:00:00Z');
const DAY = 86_400_000;
const FRESH = new Date(CREATED.getTime() + DAY);
const LAST_MOMENT = new Date(CREATED.getTime() + 60 * DAY);
const EXPIRED = new Date(CREATED.getTime() + 60 * DAY + 1000);

function input(
  mode: DocumentMode,
  overrides: Partial<Omit<DocumentAvailabilityInput, 'carrier'>> = {},
): DocumentAvailabilityInput {
  return {
    kind: 'shipment',
    status: 'ready',
    createdAt: CREATED,
    carrier: { documentMode: mode, formats: mode === 'excluded' ? [] : ['label', 'a4'] },
    storedDocument: null,
    ...overrides,
  };
}
const stored = { notIsolated: false };
const batchFile = { notIsolated: true };

const cases: Array<[string, DocumentAvailabilityInput, Date, string, string | null]> = [
  ['stored copy of a stored-mode carrier', input('stored', { storedDocument: stored }), FRESH, 'available', 'stored'],
  ['stored-mode carrier, ready, PDF not stored yet', input('stored'), FRESH, 'pending', 'stored'],
  ['render carrier without a stored copy renders at the carrier', input('render'), FRESH, 'available', 'carrier'],
  [
    'render carrier with a stored copy serves the copy',
    input('render', { storedDocument: stored }),
    FRESH,
    'available',
    'stored',
  ],
  ['stored_only carrier with a copy', input('stored_only', { storedDocument: stored }), FRESH, 'available', 'stored'],
  ['stored_only carrier without a copy cannot be reissued', input('stored_only'), FRESH, 'not_reissuable', null],
  // Decision 0708: a redaction removed the copy; the carrier is not asked for the address again either.
  ['redacted stored-mode label', input('stored', { redacted: true }), FRESH, 'not_reissuable', null],
  ['redacted render-carrier label', input('render', { redacted: true }), FRESH, 'not_reissuable', null],
  ['redacted label older than 60 days', input('render', { redacted: true }), EXPIRED, 'expired', 'carrier'],
  ['redacted failed label', input('stored', { redacted: true, status: 'failed' }), FRESH, 'not_applicable', null],
  [
    'older batch file that is not isolated',
    input('stored', { storedDocument: batchFile }),
    FRESH,
    'not_isolated',
    'stored',
  ],
  ['pending label', input('stored', { status: 'pending' }), FRESH, 'pending', 'stored'],
  ['pending label of a render carrier', input('render', { status: 'pending' }), FRESH, 'pending', 'carrier'],
  ['failed label', input('stored', { status: 'failed', storedDocument: stored }), FRESH, 'not_applicable', null],
  ['claim', input('stored', { kind: 'claim' }), FRESH, 'not_applicable', null],
  ['collection (pickup order)', input('stored', { kind: 'collection' }), FRESH, 'not_applicable', null],
  ['excluded carrier', input('excluded', { storedDocument: stored }), FRESH, 'carrier_excluded', null],
  ['excluded carrier, older than 60 days', input('excluded'), EXPIRED, 'carrier_excluded', null],
  [
    'claim older than 60 days stays not applicable',
    input('stored', { kind: 'claim' }),
    EXPIRED,
    'not_applicable',
    null,
  ],
  ['stored copy older than 60 days', input('stored', { storedDocument: stored }), EXPIRED, 'expired', 'stored'],
  ['render carrier older than 60 days', input('render'), EXPIRED, 'expired', 'carrier'],
  ['pending label older than 60 days', input('stored', { status: 'pending' }), EXPIRED, 'expired', 'stored'],
  ['not isolated and older than 60 days', input('stored', { storedDocument: batchFile }), EXPIRED, 'expired', 'stored'],
  [
    'exactly 60 days after creation is still available',
    input('stored', { storedDocument: stored }),
    LAST_MOMENT,
    'available',
    'stored',
  ],
];

describe('deriveDocument', () => {
  it.each(cases)('%s', (_name, label, now, availability, source) => {
    const derived = deriveDocument(label, now);
    expect(derived.availability).toBe(availability);
    expect(derived.source).toBe(source);
    expect(derived.availableUntil.toISOString()).toBe('2026-11-30T12:00:00.000Z');
  });

  it('lists the carrier formats, none where there is no document', () => {
    const labelOnly = {
      ...input('stored', { storedDocument: stored }),
      carrier: { documentMode: 'stored' as const, formats: ['label' as const] },
    };
    expect(deriveDocument(labelOnly, FRESH).formats).toEqual(['label']);
    expect(deriveDocument(input('render'), FRESH).formats).toEqual(['label', 'a4']);
    expect(deriveDocument(input('stored', { kind: 'claim' }), FRESH).formats).toEqual([]);
    expect(deriveDocument(input('excluded'), FRESH).formats).toEqual([]);
  });
});

describe('documentStableThroughMs', () => {
  const modes: DocumentMode[] = ['stored', 'render', 'stored_only', 'excluded'];
  it.each(modes)('%s: the answer at any earlier moment holds through the last moment before expiry', (mode) => {
    const through = documentStableThroughMs(CREATED, FRESH);
    expect(through).toBe(LAST_MOMENT.getTime());
    for (const label of [input(mode), input(mode, { storedDocument: stored }), input(mode, { status: 'pending' })]) {
      expect(deriveDocument(label, new Date(through))).toEqual(deriveDocument(label, FRESH));
    }
  });

  it('changes once: the first moment after it may answer otherwise, and expired never changes again', () => {
    expect(deriveDocument(input('render'), new Date(LAST_MOMENT.getTime() + 1)).availability).toBe('expired');
    expect(documentStableThroughMs(CREATED, LAST_MOMENT)).toBe(LAST_MOMENT.getTime());
    expect(documentStableThroughMs(CREATED, EXPIRED)).toBe(Infinity);
  });
});
