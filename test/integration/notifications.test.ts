import { SMTPServer } from 'smtp-server';
import { createActivities } from '../../activities';
import { revokeApiKey } from '../../src/access/api-keys';
import { createLogger } from '../../src/logger';
import { NOTIFICATION_DELIVERY_SCHEDULE_ID } from '../../src/temporal/schedules';
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
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(smtpPort, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await app.close();
});

describe('key notifications', () => {
  it('are queued in the outbox with the key change and delivered over SMTP once', async () => {
    const { storeId, keyId } = await aStoreWithKey(app.orm);
    await revokeApiKey(app.orm.em.fork(), { storeId, keyId, now: new Date() });
    const conn = app.orm.em.fork().getConnection();
    const queued = await conn.execute<Array<{ kind: string; to_address: string; sent_at: Date | null }>>(
      'select kind, to_address, sent_at from notifications where store_id = ? order by id',
      [storeId],
    );
    expect(queued.map((n) => n.kind)).toEqual(['api_key.created', 'api_key.revoked']);
    const to = queued[0]!.to_address;

    const activities = createActivities({
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
    const activities = createActivities({
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
});
