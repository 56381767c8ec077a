import { trace } from '@opentelemetry/api';
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { memoRequestId, requestIdOf } from './request-id-interceptor';

/**
 * Not a workflow: a workflow interceptor module in the traced bundle only, after Temporal's OpenTelemetry one (so
 * inside its spans). The workflow's spans are made in the sandbox, where the API's and the worker's span processor
 * cannot see them start: this names the request on each (`RunWorkflow`, `HandleUpdate`, `HandleSignal`,
 * `StartActivity`, `StartChildWorkflowExecution`...), as the processor does for every other span.
 */
export const interceptors: WorkflowInterceptorsFactory = () => {
  let requestId: string | undefined;
  const name = <T>(input: T): T => {
    const id = requestId ?? memoRequestId();
    if (id !== undefined) trace.getActiveSpan()?.setAttribute('request_id', id);
    return input;
  };
  return {
    inbound: [
      {
        execute(input, next) {
          requestId = memoRequestId() ?? requestIdOf(input.headers);
          return next(name(input));
        },
        handleUpdate: (input, next) => next(name(input)),
        validateUpdate: (input, next) => next(name(input)),
        handleSignal: (input, next) => next(name(input)),
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => next(name(input)),
        scheduleLocalActivity: (input, next) => next(name(input)),
        startChildWorkflowExecution: (input, next) => next(name(input)),
        signalWorkflow: (input, next) => next(name(input)),
      },
    ],
  };
};
