import { withRetryPair } from '../../src/domain/error-catalog';

describe('withRetryPair: the retry / next_action pair of an error (spec "Errors")', () => {
  it.each([
    ['resolved_not_created', 'later', 'retry_later'],
    ['not_started', 'later', 'retry_later'],
    ['shopify_unavailable', 'later', 'retry_later'],
    ['creation_in_progress', 'later', 'retry_later'],
    ['unresolved_creation', 'manual', 'manual_check'],
    ['label_exists', 'no', 'none'],
    ['precondition_failed', 'after_fix', 'fix_and_retry'],
    ['carrier_rejected', 'after_fix', 'fix_and_retry'],
    ['label_validation_failed', 'after_fix', 'fix_and_retry'],
    ['carrier_unavailable', 'later', 'retry_later'],
  ] as const)('%s defaults to %s / %s', (code, retry, nextAction) => {
    expect(withRetryPair(code, { label_creation_id: 'lcr_1' })).toEqual({
      label_creation_id: 'lcr_1',
      retry,
      next_action: nextAction,
    });
  });

  it('keeps the pair the error carries (the value in the response wins over the default)', () => {
    const details = { reason: 'account_rejecting', retry: 'after_fix', next_action: 'fix_and_retry' };
    expect(withRetryPair('carrier_unavailable', details)).toEqual(details);
  });

  it('adds nothing to a code without a default', () => {
    expect(withRetryPair('not_found', { order_id: '1' })).toEqual({ order_id: '1' });
    expect(withRetryPair('document_expired')).toEqual({});
  });
});
