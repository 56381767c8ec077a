import type { StoredAttention } from '../../src/domain/creation-record';
import type { CreationState } from '../../workflows/label-creation/contract';
import { currentDetails, startMetadata, type DetailsView } from '../../workflows/label-creation/details';

/**
 * The markdown of a creation's page in the Temporal Web UI: its renderer runs a list into the paragraph above it unless
 * a blank line parts them (seen in a browser, docs/manual-checks.md), so every list here starts after one; and the
 * carrier and service chosen are named from the decision on.
 */
const listsAfterBlankLines = (markdown: string) => {
  const lines = markdown.split('\n');
  return lines.every(
    (line, i) => !line.startsWith('- ') || i === 0 || lines[i - 1] === '' || lines[i - 1]!.startsWith('- '),
  );
};

const attention: StoredAttention = {
  reason: 'carrier_timeout',
  shipmentAtCarrier: 'unknown',
  carrier: { code: 'carrier_a', name: 'Carrier A', accountId: 'ca_demo_a' },
  carrierReference: 'Z1234567890',
  carrierNote: null,
  sentAt: '2026-11-27T10:00:00.000Z',
  resolveAllowedAt: '2026-11-27T10:15:00.000Z',
};

const state = (overrides: Partial<CreationState>): CreationState => ({
  creationId: 'lcr_1',
  status: 'processing',
  phase: 'preparing',
  waitingFor: null,
  labelIds: [],
  error: null,
  attention: null,
  resolution: null,
  ...overrides,
});

const view = (overrides: Partial<CreationState>, carrier: DetailsView['carrier'] = null): DetailsView => ({
  state: state(overrides),
  storeId: 'st_1',
  order: '#1013',
  carrier,
  // Fixed instants are data here: details.ts formats the instants it is given and reads no clock.
  deadlineMs: Date.parse('2026-11-27T10:05:00Z'),
  nextLookAtMs: Date.parse('2026-11-27T10:01:00Z'),
  abandonAtMs: Date.parse('2026-11-28T10:00:00Z'),
  looking: false,
});

const byRule = { name: 'Carrier A', accountId: 'ca_demo_a', serviceCode: 'a_home', rulePriority: 2 };

describe('a creation’s details in the Web UI', () => {
  it('start every list after a blank line, in every state', () => {
    const texts = [
      currentDetails(view({})),
      currentDetails(view({ phase: 'sending_to_carrier' }, byRule)),
      currentDetails(view({ status: 'succeeded', phase: null, labelIds: ['lbl_1'] }, byRule)),
      currentDetails(view({ status: 'needs_attention', phase: null, attention }, byRule)),
      currentDetails(
        view(
          {
            status: 'needs_attention',
            phase: null,
            attention,
            resolution: { outcome: 'shipment_exists', resolvedBy: 'ak_1', resolvedAt: '2026-11-27T10:20:00Z' } as never,
          },
          byRule,
        ),
      ),
      startMetadata({
        creationId: 'lcr_1',
        storeId: 'st_1',
        idempotencyKey: 'k1',
        order: '#1013',
        carrierAccountId: null,
      }).staticDetails,
    ];
    for (const text of texts) expect(listsAfterBlankLines(text)).toBe(true);
  });

  it('name the carrier and service chosen, and what chose them, once decided and to the end', () => {
    expect(currentDetails(view({}))).not.toContain('Carrier:');
    const succeeded = currentDetails(view({ status: 'succeeded', phase: null, labelIds: ['lbl_1'] }, byRule));
    expect(succeeded).toContain(
      "**Succeeded**: label(s) `lbl_1`.\n\n- Carrier: Carrier A (`ca_demo_a`), service `a_home`, chosen by the store's rule of priority 2",
    );
    const requested = currentDetails(view({ phase: 'waiting_for_carrier' }, { ...byRule, rulePriority: null }));
    expect(requested).toContain('service `a_home`, as the request named');
    const unclear = currentDetails(view({ status: 'needs_attention', phase: null, attention }, byRule));
    expect(unclear).toContain('- Carrier: Carrier A (`ca_demo_a`), service `a_home`, look for reference `Z1234567890`');
  });
});
