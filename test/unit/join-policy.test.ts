import { ServiceError, WorkflowUpdateFailedError } from '@temporalio/client';
import {
  busyRefusal,
  GRPC_RESOURCE_EXHAUSTED,
  JOIN_BUSY_WORKFLOW,
  joinBusyWorkflow,
  type JoinAttempts,
} from '../../src/creation/join-policy';

const grpcError = (code: number) => Object.assign(new Error('grpc'), { code });
const closing = () => new WorkflowUpdateFailedError('refused by the validator', new Error('another attempt'));
const overloaded = () => new ServiceError('too many updates', { cause: grpcError(GRPC_RESOURCE_EXHAUSTED) });

describe('busyRefusal', () => {
  it.each<[string, unknown, ReturnType<typeof busyRefusal>]>([
    ['an update refused by the run of an earlier attempt', closing(), 'closing'],
    ['RESOURCE_EXHAUSTED', overloaded(), 'overloaded'],
    ['another gRPC status (NOT_FOUND)', new ServiceError('gone', { cause: grpcError(5) }), null],
    ['a service error without a status', new ServiceError('down'), null],
    ['any other error', new Error('connection refused'), null],
  ])('%s', (_, error, refusal) => {
    expect(busyRefusal(error)).toBe(refusal);
  });

  it('reads RESOURCE_EXHAUSTED as gRPC numbers it', () => {
    expect(GRPC_RESOURCE_EXHAUSTED).toBe(8);
  });
});

/** A join whose attempts fail with `failures` in turn, then succeed; its sleeps are recorded, not slept. */
function aJoin(failures: Array<() => unknown>, overrides: Partial<JoinAttempts> = {}) {
  const slept: number[] = [];
  let attempts = 0;
  const join: JoinAttempts = {
    policy: { attempts: 5, backoffMs: 150 },
    attempt: async () => {
      const failure = failures[attempts];
      attempts += 1;
      if (failure) throw failure();
    },
    recordAnswers: async () => false,
    repeat: false,
    sleep: async (ms) => {
      slept.push(ms);
    },
    ...overrides,
  };
  return { join, slept, attempts: () => attempts };
}

describe('joinBusyWorkflow', () => {
  it('tries again after each busy refusal, backoffMs apart, until the run takes the request', async () => {
    const { join, slept, attempts } = aJoin([closing, overloaded, closing]);
    await expect(joinBusyWorkflow(join)).resolves.toBe('joined');
    expect(attempts()).toBe(4);
    expect(slept).toEqual([150, 150, 150]);
  });

  it('gives up after the policy’s attempts, throwing the last refusal', async () => {
    const last = closing();
    const { join, slept, attempts } = aJoin([closing, closing, closing, closing, () => last, closing]);
    await expect(joinBusyWorkflow(join)).rejects.toBe(last);
    expect(attempts()).toBe(5);
    expect(slept).toHaveLength(4);
  });

  it('the standing policy is 40 attempts 150 ms apart', async () => {
    const { join, slept, attempts } = aJoin(
      Array.from({ length: 50 }, () => closing),
      {
        policy: JOIN_BUSY_WORKFLOW,
      },
    );
    await expect(joinBusyWorkflow(join)).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    expect(attempts()).toBe(40);
    expect(slept).toEqual(Array.from({ length: 39 }, () => 150));
  });

  it('throws any other error at once', async () => {
    const down = new Error('connection refused');
    const { join, slept } = aJoin([() => down]);
    await expect(joinBusyWorkflow(join)).rejects.toBe(down);
    expect(slept).toEqual([]);
  });

  it('leaves the answer to the record when an overloaded workflow’s creation has moved', async () => {
    const { join, slept, attempts } = aJoin([overloaded, overloaded], { recordAnswers: async () => true });
    await expect(joinBusyWorkflow(join)).resolves.toBe('left_to_record');
    expect(attempts()).toBe(1);
    expect(slept).toEqual([]);
  });

  it('asks the record only on overload: a closing run is waited for', async () => {
    const recordAnswers = jest.fn(async () => true);
    const { join } = aJoin([closing], { recordAnswers });
    await expect(joinBusyWorkflow(join)).resolves.toBe('joined');
    expect(recordAnswers).not.toHaveBeenCalled();
  });

  it('a repeat still overloaded after the last attempt answers from the record; a new creation throws', async () => {
    const always = Array.from({ length: 5 }, () => overloaded);
    await expect(joinBusyWorkflow(aJoin(always, { repeat: true }).join)).resolves.toBe('left_to_record');
    await expect(joinBusyWorkflow(aJoin(always).join)).rejects.toBeInstanceOf(ServiceError);
  });

  it('a repeat still refused by a closing run after the last attempt throws', async () => {
    const always = Array.from({ length: 5 }, () => closing);
    await expect(joinBusyWorkflow(aJoin(always, { repeat: true }).join)).rejects.toBeInstanceOf(
      WorkflowUpdateFailedError,
    );
  });
});
