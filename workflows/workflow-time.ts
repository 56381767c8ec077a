/**
 * Workflow time in epoch milliseconds. Inside Temporal's workflow sandbox `Date` is the time of the current workflow
 * task, the same on every replay, so this is deterministic; the lint forbids `Date.now()` everywhere else in workflows
 * and the domain, so this module is the one place that reads it.
 */
export function workflowNow(): number {
  // eslint-disable-next-line no-restricted-syntax -- deterministic inside the workflow sandbox (see above)
  return Date.now();
}
