import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import { openValue, sealValue } from '../../src/crypto/sealed-values';
import {
  isDelivered,
  responseExcerpt,
  webhookRetryDelayMs,
  type WebhookRetrySchedule,
} from '../../src/domain/webhooks';
import { BlockedTargetError, checkPublicTarget, type Resolver } from '../../src/net/target-guard';
import { newWebhookSecret, parseTopics, WebhookConfigError } from '../../src/webhooks/endpoints';
import { parseSignatureHeader, signatureHeader, signatureOf, verifySignature } from '../../src/webhooks/signature';

const body = '{"id":"evt_1","topic":"label_creation.updated","errorCode":null}';
const secret = 'whsec_0123456789abcdefghijABCDEFGHIJkl';
const other = 'whsec_ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvuts';
const t = 1_795_000_000;

describe('webhook signature', () => {
  it('is HMAC-SHA256 in hex of "<t>.<body>" under the secret', () => {
    const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(signatureOf(secret, t, body)).toBe(expected);
    expect(signatureHeader([secret], t, body)).toBe(`t=${t},v1=${expected}`);
  });

  it('carries one v1 per active secret, newest first, during a rotation overlap', () => {
    const header = signatureHeader([other, secret], t, body);
    expect(header).toBe(`t=${t},v1=${signatureOf(other, t, body)},v1=${signatureOf(secret, t, body)}`);
    expect(verifySignature(header, body, secret, { nowSeconds: t })).toEqual({ ok: true });
    expect(verifySignature(header, body, other, { nowSeconds: t })).toEqual({ ok: true });
  });

  it('refuses to sign without a secret', () => {
    expect(() => signatureHeader([], t, body)).toThrow();
  });

  it.each([
    ['a changed body', signatureHeader([secret], t, body), `${body} `, secret, t, 'no_match'],
    ['another secret', signatureHeader([secret], t, body), body, other, t, 'no_match'],
    ['a timestamp older than 5 minutes', signatureHeader([secret], t, body), body, secret, t + 301, 'too_old'],
    ['a timestamp more than 5 minutes ahead', signatureHeader([secret], t, body), body, secret, t - 301, 'too_old'],
    ['a changed timestamp', `t=${t + 1},v1=${signatureOf(secret, t, body)}`, body, secret, t, 'no_match'],
    ['no timestamp', `v1=${signatureOf(secret, t, body)}`, body, secret, t, 'malformed'],
    ['no v1', `t=${t}`, body, secret, t, 'malformed'],
    ['garbage', 'nonsense', body, secret, t, 'malformed'],
    ['a v1 that is not 64 hex digits', `t=${t},v1=abc`, body, secret, t, 'malformed'],
  ])('fails verification with %s', (_name, header, received, key, now, reason) => {
    expect(verifySignature(header, received, key, { nowSeconds: now })).toEqual({ ok: false, reason });
  });

  it('accepts a timestamp within the tolerance, and a tolerance of its own', () => {
    const header = signatureHeader([secret], t, body);
    expect(verifySignature(header, body, secret, { nowSeconds: t + 300 })).toEqual({ ok: true });
    expect(verifySignature(header, body, secret, { nowSeconds: t + 30, toleranceSeconds: 10 })).toEqual({
      ok: false,
      reason: 'too_old',
    });
  });

  it('ignores schemes it does not know (a future v2) and spaces', () => {
    const v1 = signatureOf(secret, t, body);
    expect(parseSignatureHeader(`t=${t}, v2=${'0'.repeat(64)}, v1=${v1}`)).toEqual({ timestamp: t, signatures: [v1] });
  });
});

describe('webhook retry schedule', () => {
  const schedule: WebhookRetrySchedule = {
    initialIntervalMs: 30_000,
    maximumIntervalMs: 3_600_000,
    windowMs: 24 * 3_600_000,
  };

  it.each([
    [1, 0, 30_000],
    [2, 30_000, 60_000],
    [3, 90_000, 120_000],
    [8, 3_810_000, 3_600_000], // 30 s * 2^7 = 64 min, capped at 1 h
    [60, 20 * 3_600_000, 3_600_000], // the exponent is bounded; the cap holds
    [10, 23 * 3_600_000, 3_600_000], // the next attempt starts exactly at the end of the window: still made
    [10, 23 * 3_600_000 + 1, null], // one millisecond later: past the window, the delivery has failed
    [1, 24 * 3_600_000, null],
  ])('after attempt %i ending at +%i ms waits %p', (attempt, elapsed, expected) => {
    expect(webhookRetryDelayMs(schedule, attempt, elapsed)).toBe(expected);
  });

  it('counts attempts from 1', () => {
    expect(() => webhookRetryDelayMs(schedule, 0, 0)).toThrow(RangeError);
    expect(() => webhookRetryDelayMs(schedule, 1.5, 0)).toThrow(RangeError);
  });

  it('makes 30 attempts in 24 hours with the defaults', () => {
    let attempts = 1;
    let elapsed = 0;
    for (;;) {
      const delay = webhookRetryDelayMs(schedule, attempts, elapsed);
      if (delay === null) break;
      elapsed += delay;
      attempts += 1;
    }
    expect(attempts).toBe(30);
  });
});

describe('delivery outcome and log excerpt', () => {
  it.each([
    [200, true],
    [204, true],
    [299, true],
    [301, false],
    [410, false],
    [500, false],
    [null, false],
  ])('status %p delivered: %p', (status, delivered) => {
    expect(isDelivered(status)).toBe(delivered);
  });

  it('keeps one printable line of at most 200 characters, and nothing for an empty answer', () => {
    expect(responseExcerpt('  ok\r\n\t{"a":1}\u0000 ')).toBe('ok {"a":1}');
    expect(responseExcerpt('x'.repeat(500))).toBe(`${'x'.repeat(199)}…`);
    expect(responseExcerpt(' \n ')).toBeNull();
  });
});

describe('endpoint settings', () => {
  it('makes whsec_ secrets of 32 base62 characters, never the same twice', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(newWebhookSecret()).not.toBe(a);
  });

  it.each([
    [undefined, ['label_creation.updated']],
    ['label_creation.updated', ['label_creation.updated']],
    [' label_creation.updated , label_creation.updated', ['label_creation.updated']],
  ])('topics %p are %p', (value, topics) => {
    expect(parseTopics(value)).toEqual(topics);
  });

  it.each(['', ',', 'label.created', 'label_creation.updated,orders.paid'])('refuses topics %p', (value) => {
    expect(() => parseTopics(value)).toThrow(WebhookConfigError);
  });

  it('seals secrets bound to their endpoint', () => {
    const key = randomBytes(32);
    const sealed = sealValue(key, 'webhook_endpoint:we_1', secret);
    expect(sealed).not.toContain(secret);
    expect(openValue(key, 'webhook_endpoint:we_1', sealed)).toBe(secret);
    expect(openValue(key, 'webhook_endpoint:we_2', sealed)).toBeNull();
    expect(openValue(randomBytes(32), 'webhook_endpoint:we_1', sealed)).toBeNull();
    expect(openValue(key, 'webhook_endpoint:we_1', 'v1:broken')).toBeNull();
  });
});

describe('endpoint URL with DNS resolution (checkPublicTarget)', () => {
  const policy = { trustedOrigins: ['http://127.0.0.1:4010'] };
  const resolverOf =
    (table: Record<string, string[]>): Resolver =>
    async (hostname) =>
      (table[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  const resolve = resolverOf({
    'hooks.example.com': ['93.184.216.34'],
    'inward.example.com': ['10.1.2.3'],
    'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
    'linklocal.example.com': ['169.254.169.254'],
    'v6.example.com': ['fd00::1'],
  });

  it('accepts an HTTPS host that resolves to public addresses only', async () => {
    await expect(checkPublicTarget('https://hooks.example.com/x', policy, resolve)).resolves.toBeInstanceOf(URL);
  });

  it('accepts the sandbox origin (trusted) without resolving it', async () => {
    const never: Resolver = async () => {
      throw new Error('must not resolve');
    };
    await expect(checkPublicTarget('http://127.0.0.1:4010/webhook-receivers/a', policy, never)).resolves.toBeInstanceOf(
      URL,
    );
  });

  it.each([
    ['http://hooks.example.com/x', 'scheme_not_https'],
    ['https://inward.example.com/x', 'private_address'],
    ['https://mixed.example.com/x', 'private_address'],
    ['https://linklocal.example.com/x', 'private_address'],
    ['https://v6.example.com/x', 'private_address'],
    ['https://unknown.example.com/x', 'private_address'],
    ['https://127.0.0.1/x', 'private_address'],
    ['https://[::1]/x', 'private_address'],
    ['https://user:pw@hooks.example.com/x', 'credentials_in_url'],
    ['not a url', 'invalid_url'],
  ])('refuses %s (%s)', async (url, reason) => {
    await expect(checkPublicTarget(url, policy, resolve)).rejects.toMatchObject({
      name: BlockedTargetError.name,
      reason,
    });
  });
});

describe('the verification example of docs/webhooks.md', () => {
  // The merchant copies this code: it must accept what the service signs and refuse what it must refuse.
  const markdown = readFileSync(join(__dirname, '..', '..', 'docs', 'webhooks.md'), 'utf8');
  const block = /<!-- verify-example:start -->\s*```js\n([\s\S]*?)```\s*<!-- verify-example:end -->/.exec(markdown);
  // The example's Date is the test's: a new context has a Date of its own, on the real clock, and the unit project's
  // runs a year ahead (decision 1151).
  const sandbox: {
    require: NodeRequire;
    Buffer: typeof Buffer;
    Date: DateConstructor;
    verify?: (...args: unknown[]) => boolean;
  } = { require, Buffer, Date };
  vm.runInNewContext(`${block![1]}\nverify = verifyShippingLabelSignature;`, sandbox);
  const verify = sandbox.verify!;
  const now = Math.floor(Date.now() / 1000);

  it('accepts a signed body as a string or Buffer, with one secret or during a rotation', () => {
    expect(verify(body, signatureHeader([secret], now, body), secret)).toBe(true);
    expect(verify(Buffer.from(body), signatureHeader([secret], now, body), secret)).toBe(true);
    expect(verify(body, signatureHeader([other, secret], now, body), secret)).toBe(true);
    expect(verify(body, signatureHeader([other, secret], now, body), other)).toBe(true);
  });

  it.each([
    ['a changed body', signatureHeader([secret], now, body), `${body} `, secret],
    ['another secret', signatureHeader([secret], now, body), body, other],
    ['an old timestamp', signatureHeader([secret], now - 301, body), body, secret],
    ['no header', undefined, body, secret],
    ['a header without v1', `t=${now}`, body, secret],
  ])('refuses %s', (_name, header, received, key) => {
    expect(verify(received, header, key)).toBe(false);
  });
});
