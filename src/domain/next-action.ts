import type { DocumentAvailability, LabelCreationStatus, NextAction } from './labels';

export interface NextActionInput {
  status: LabelCreationStatus | 'validated';
  /** `error.details.next_action` of a failed creation, when the error names one. */
  errorNextAction: NextAction | null;
  /** `document.availability` of the creation's labels. */
  labelAvailabilities: readonly DocumentAvailability[];
}

/** Spec "`next_action` meaning": what the caller does next, derived from the creation's state. */
export function nextActionOf(input: NextActionInput): NextAction {
  switch (input.status) {
    case 'processing':
      return 'poll';
    case 'needs_attention':
      return 'manual_check';
    case 'failed':
      return input.errorNextAction ?? 'fix_and_retry';
    case 'succeeded':
      if (input.labelAvailabilities.includes('pending')) return 'wait_for_document';
      return input.labelAvailabilities.includes('available') ? 'fetch_document' : 'none';
    case 'abandoned':
    case 'validated':
      return 'none';
  }
}
