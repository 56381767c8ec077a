import { SMTPServer } from 'smtp-server';
import { createNotificationActivities } from '../../activities/notifications';
import { revokeApiKey } from '../../src/access/api-keys';
import { createLogger } from '../../src/logger';
import { outboxRetryDelayMs } from '../../src/notifications/outbox-backoff';
import { NOTIFICATION_DELIVERY_SCHEDULE_ID } from '../../src/temporal/schedules';
import { labelctl, labelctlJson } from '../helpers/labelctl';
import { freePort } from '../helpers/processes';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

interface Received {
  to: string[];
  raw: string;
}

let app: TestApp;
let smtp: SMTPServer;
let smtpPort: number;
const received: Received[] = [];
/** How long the SMTP server takes per message; raised to make deliveries overlap. */
let smtpDelayMs = 0;

beforeAll(async () => {
  app = await startTestApp();
  smtpPort = await freePort();
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        setTimeout(callback, smtpDelayMs);
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(smtpPort, '127.0.0.1', resolve));
});
// The run's database is shared: its outbox holds a mail for every store other test files made (their worker has no
// SMTP). A delivery here would send them all, up to a thousand, before this file's own; they wait a day instead, so
// each test delivers what it queues.
beforeEach(async () => {
  await app.orm.em
    .fork()
    .execute(`update notifications set next_attempt_at = now() + interval '1 day' where sent_at is null`);
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await app.close();
});

describe('key notifications', () => {
  it('are queued in the outbox with the key change and delivered over SMTP once', async () => {
    const { storeId, keyId } = await aStoreWithKey(app.orm);
    await revokeApiKey(app.orm.em.fork(), { storeId, keyId, now: new Date() });
    const conn = app.orm.em.fork();
    const queued = await conn.execute<Array<{ kind: string; to_address: string; sent_at: Date | null }>>(
      'select kind, to_address, sent_at from notifications where store_id = ? order by id',
      [storeId],
    );
    expect(queued.map((n) => n.kind)).toEqual(['api_key.created', 'api_key.revoked']);
    const to = queued[0]!.to_address;

    const activities = createNotificationActivities({
      orm: app.orm,
      logger: createLogger('silent'),
      now: () => new Date(),
      smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
      mailFrom: 'Shipping Label API <no-reply@example.com>',
    });
    const first = await activities.deliverNotifications();
    expect(first.held).toBe(false);
    expect(first.sent).toBeGreaterThanOrEqual(2);
    const mine = received.filter((m) => m.to.includes(to));
    expect(mine).toHaveLength(2);
    expect(mine.map((m) => /Subject: (.*)/.exec(m.raw)?.[1])).toEqual([
      'API key created: test key',
      'API key revoked: test key',
    ]);

    await activities.deliverNotifications();
    expect(received.filter((m) => m.to.includes(to))).toHaveLength(2);
    const after = await conn.execute<Array<{ sent_at: Date | null }>>(
      'select sent_at from notifications where store_id = ?',
      [storeId],
    );
    for (const row of after) expect(row.sent_at).not.toBeNull();
  });

  it('stay in the outbox without an SMTP transport', async () => {
    const activities = createNotificationActivities({
      orm: app.orm,
      logger: createLogger('silent'),
      now: () => new Date(),
      smtpUrl: undefined,
      mailFrom: 'x@example.com',
    });
    expect(await activities.deliverNotifications()).toEqual({ sent: 0, failed: 0, held: true });
  });

  it('are delivered by a Schedule the worker creates', async () => {
    const description = await app.temporal.schedule.getHandle(NOTIFICATION_DELIVERY_SCHEDULE_ID).describe();
    expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: 'deliverNotificationsWorkflow' });
  });

  it('are sent exactly once when two deliveries overlap (a retry while the first attempt still sends)', async () => {
    const stores = await Promise.all([1, 2, 3].map(() => aStoreWithKey(app.orm)));
    const addresses = await Promise.all(
      stores.map(async ({ storeId }) => {
        const [row] = await app.orm.em
          .fork()
          .execute<Array<{ to_address: string }>>('select to_address from notifications where store_id = ?', [storeId]);
        return row!.to_address;
      }),
    );
    smtpDelayMs = 300;
    try {
      const deliver = () =>
        createNotificationActivities({
          orm: app.orm,
          logger: createLogger('silent'),
          now: () => new Date(),
          smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
          mailFrom: 'x@example.com',
        }).deliverNotifications();
      const [a, b] = await Promise.all([deliver(), deliver()]);
      expect(a.failed + b.failed).toBe(0);
    } finally {
      smtpDelayMs = 0;
    }
    for (const address of addresses) expect(received.filter((m) => m.to.includes(address))).toHaveLength(1);
  });

  it('wait with backoff through an SMTP outage and are never dropped', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const em = app.orm.em.fork();
    const [row] = await em.execute<Array<{ id: string; to_address: string }>>(
      'select id, to_address from notifications where store_id = ?',
      [storeId],
    );
    // Ten failed attempts already: the outbox used to give up here.
    await em.execute('update notifications set attempts = 10 where id = ?', [row!.id]);
    let clock = new Date();
    const activities = (smtpUrl: string) =>
      createNotificationActivities({
        orm: app.orm,
        logger: createLogger('silent'),
        now: () => clock,
        smtpUrl,
        mailFrom: 'x@example.com',
      });
    const down = `smtp://127.0.0.1:${await freePort()}`;
    await activities(down).deliverNotifications();
    const [waiting] = await em.execute<
      Array<{ sent_at: string | null; attempts: number; next_attempt_at: string; last_error: string }>
    >('select sent_at, attempts, next_attempt_at, last_error from notifications where id = ?', [row!.id]);
    expect(waiting!.sent_at).toBeNull();
    expect(waiting!.attempts).toBe(11);
    expect(waiting!.last_error).toBeTruthy();
    expect(new Date(waiting!.next_attempt_at).getTime()).toBeGreaterThan(clock.getTime());
    expect(new Date(waiting!.next_attempt_at).getTime()).toBeLessThanOrEqual(clock.getTime() + outboxRetryDelayMs(11));
    // The operator sees it waiting, with why and until when.
    const [listed] = await labelctlJson('outbox', '--store', storeId);
    expect(listed).toMatchObject({ to: row!.to_address, sent_at: null, attempts: 11, last_error: waiting!.last_error });
    expect(new Date(listed.next_attempt_at).getTime()).toBe(
      Math.floor(new Date(waiting!.next_attempt_at).getTime() / 1000) * 1000,
    );
    const shown = await labelctl('outbox', '--store', storeId);
    expect(shown.stdout).toContain(`waiting (11 failed, next ${listed.next_attempt_at as string}:`);

    // SMTP is back, but the mail waits for its turn; then it goes out once.
    const up = `smtp://127.0.0.1:${smtpPort}`;
    await activities(up).deliverNotifications();
    expect(received.filter((m) => m.to.includes(row!.to_address))).toHaveLength(0);
    clock = new Date(new Date(waiting!.next_attempt_at).getTime() + 1000);
    await activities(up).deliverNotifications();
    expect(received.filter((m) => m.to.includes(row!.to_address))).toHaveLength(1);
  });
});

describe('outbox backoff', () => {
  it('doubles from one minute and caps at six hours', () => {
    expect([1, 2, 3, 4].map(outboxRetryDelayMs)).toEqual([60_000, 120_000, 240_000, 480_000]);
    expect(outboxRetryDelayMs(30)).toBe(6 * 3_600_000);
  });
});
