import { fittingService, ruleMatches, selectCarrier, type RuleFacts } from '../../src/domain/carrier-selection';
import type { ContextCarrierAccount, ContextRule, ContextRuleConditions } from '../../src/domain/creation-context';
import { anAccount, anOrder } from '../helpers/creation-context';

const facts = (overrides: Partial<RuleFacts> = {}): RuleFacts => ({
  order: anOrder({ tags: ['VIP'] }),
  labelCurrency: 'CZK',
  codRequired: false,
  ...overrides,
});
const pickupOrder = anOrder({
  deliveryMethod: {
    type: 'pickup',
    title: 'Pickup point',
    pickupPoint: { id: '1', carrierCode: 'carrier_a', name: null, country: 'SK' },
  },
});

describe('ruleMatches', () => {
  it.each<[string, ContextRuleConditions, RuleFacts, boolean]>([
    ['no conditions', {}, facts(), true],
    ['empty lists are no condition', { countryCodes: [], tagsAny: [] }, facts(), true],
    ['delivery method type', { deliveryMethodTypes: ['shipping'] }, facts(), true],
    ['other delivery method type', { deliveryMethodTypes: ['pickup'] }, facts(), false],
    ['country of the address, any case', { countryCodes: ['cz'] }, facts(), true],
    ['country of the pickup point before the address', { countryCodes: ['CZ'] }, facts({ order: pickupOrder }), false],
    ['pickup point country', { countryCodes: ['SK'] }, facts({ order: pickupOrder }), true],
    ['no destination at all', { countryCodes: ['CZ'] }, facts({ order: anOrder({ shippingAddress: null }) }), false],
    ['shipping method name, any case', { shippingMethodNames: ['standard'] }, facts(), true],
    ['other shipping method', { shippingMethodNames: ['Express'] }, facts(), false],
    ['label currency', { currencies: ['CZK'] }, facts(), true],
    ['other currency', { currencies: ['EUR'] }, facts(), false],
    ['has a pickup point', { hasPickupPoint: true }, facts({ order: pickupOrder }), true],
    ['has none', { hasPickupPoint: true }, facts(), false],
    ['COD required', { codRequired: true }, facts({ codRequired: true }), true],
    ['COD not required', { codRequired: true }, facts(), false],
    ['a tag, any case', { tagsAny: ['vip'] }, facts(), true],
    ['no such tag', { tagsAny: ['wholesale'] }, facts(), false],
    ['every condition must hold', { countryCodes: ['CZ'], currencies: ['EUR'] }, facts(), false],
  ])('%s', (_name, conditions, f, expected) => {
    expect(ruleMatches(conditions, f)).toBe(expected);
  });
});

describe('fittingService', () => {
  const account = anAccount();
  it.each<[string, ContextCarrierAccount, boolean, string | null]>([
    ['the only service', anAccount({ services: [account.services[0]!] }), true, 'a_home'],
    ['the home service without a pickup point', account, false, 'a_home'],
    ['the pickup service with one', account, true, 'a_pickup'],
    [
      'none when two fit',
      anAccount({ services: [account.services[0]!, { ...account.services[0]!, code: 'a_home2' }] }),
      false,
      null,
    ],
  ])('%s', (_name, a, hasPoint, expected) => {
    expect(fittingService(a, hasPoint)?.code ?? null).toBe(expected);
  });
});

const accountA = anAccount({ id: 'ca_a' });
const accountC = anAccount({
  id: 'ca_c',
  carrierCode: 'carrier_c',
  services: [{ code: 'c_home', name: 'Home', codSupported: true, pickupPointRequired: false }],
});
const disabled = anAccount({ id: 'ca_off', apiCreation: 'not_enabled' });
const rule = (
  priority: number,
  carrierAccountId: string,
  serviceCode: string,
  conditions: ContextRuleConditions = {},
): ContextRule => ({
  id: `cr_${priority}`,
  priority,
  conditions,
  carrierAccountId,
  serviceCode,
});

describe('selectCarrier', () => {
  type Expected =
    | { selection: string; account: string; service: string; rule: number | null }
    | { reason: string; details?: Record<string, unknown> };
  it.each<[string, ContextCarrierAccount[], ContextRule[], { account?: string; service?: string }, Expected]>([
    [
      'rules: lowest priority that matches',
      [accountA, accountC],
      [rule(2, 'ca_c', 'c_home'), rule(1, 'ca_a', 'a_home', { currencies: ['EUR'] }), rule(3, 'ca_a', 'a_pickup')],
      {},
      { selection: 'auto', account: 'ca_c', service: 'c_home', rule: 2 },
    ],
    [
      'rules: none matches',
      [accountA, accountC],
      [rule(1, 'ca_a', 'a_home', { currencies: ['EUR'] })],
      {},
      {
        reason: 'no_matching_rule',
        details: {
          candidates: [
            { carrier_account_id: 'ca_a', carrier: 'carrier_a' },
            { carrier_account_id: 'ca_c', carrier: 'carrier_c' },
          ],
        },
      },
    ],
    [
      'rules: the matching rule’s account is not enabled',
      [accountA, disabled],
      [rule(1, 'ca_off', 'a_home')],
      {},
      { reason: 'carrier_not_enabled', details: { carrier_account_id: 'ca_off' } },
    ],
    [
      'rules: the rule’s service is gone',
      [accountA],
      [rule(1, 'ca_a', 'a_gone')],
      {},
      { reason: 'service_not_creatable', details: { service_code: 'a_gone' } },
    ],
    [
      'rules: the rule’s account is gone',
      [accountA],
      [rule(1, 'ca_gone', 'a_home')],
      {},
      { reason: 'carrier_account_not_found' },
    ],
    ['no accounts', [], [], {}, { reason: 'no_carrier_accounts' }],
    [
      'no rules, one account with one fitting service',
      [accountA],
      [],
      {},
      { selection: 'auto', account: 'ca_a', service: 'a_home', rule: null },
    ],
    [
      'no rules, one account with several fitting services',
      [anAccount({ services: [accountA.services[0]!, { ...accountA.services[0]!, code: 'a_x' }] })],
      [],
      {},
      { reason: 'service_unresolved', details: { carrier_account_id: 'ca_a' } },
    ],
    ['no rules, several accounts', [accountA, accountC], [], {}, { reason: 'ambiguous_accounts' }],
    [
      'no rules, one enabled of two',
      [accountA, disabled],
      [],
      {},
      { selection: 'auto', account: 'ca_a', service: 'a_home', rule: null },
    ],
    [
      'no rules, the only account not enabled',
      [disabled],
      [],
      {},
      { reason: 'carrier_not_enabled', details: { carrier_account_id: 'ca_off' } },
    ],
    [
      'no rules, no account enabled',
      [disabled, { ...disabled, id: 'ca_off2' }],
      [],
      {},
      { reason: 'carrier_not_enabled' },
    ],
    [
      'requested account and service',
      [accountA, accountC],
      [rule(1, 'ca_c', 'c_home')],
      { account: 'ca_a', service: 'a_pickup' },
      { selection: 'requested', account: 'ca_a', service: 'a_pickup', rule: null },
    ],
    [
      'requested account, service from its matching rule',
      [accountA],
      [rule(1, 'ca_a', 'a_pickup')],
      { account: 'ca_a' },
      { selection: 'requested_account', account: 'ca_a', service: 'a_pickup', rule: 1 },
    ],
    [
      'requested account, service that fits the order',
      [accountA, accountC],
      [rule(1, 'ca_c', 'c_home')],
      { account: 'ca_a' },
      { selection: 'requested_account', account: 'ca_a', service: 'a_home', rule: null },
    ],
    [
      'requested account unknown',
      [accountA],
      [],
      { account: 'ca_nope' },
      { reason: 'carrier_account_not_found', details: { carrier_account_id: 'ca_nope' } },
    ],
    ['requested account not enabled', [disabled], [], { account: 'ca_off' }, { reason: 'carrier_not_enabled' }],
    [
      'requested service unknown',
      [accountA],
      [],
      { account: 'ca_a', service: 'c_home' },
      { reason: 'service_not_creatable', details: { carrier_account_id: 'ca_a', service_code: 'c_home' } },
    ],
    [
      'requested account without a fitting service',
      [anAccount({ services: [accountA.services[0]!, { ...accountA.services[0]!, code: 'a_x' }] })],
      [],
      { account: 'ca_a' },
      { reason: 'service_unresolved' },
    ],
  ])('%s', (_name, accounts, rules, requested, expected) => {
    const result = selectCarrier(accounts, rules, facts(), {
      carrierAccountId: requested.account ?? null,
      serviceCode: requested.service ?? null,
    });
    if ('reason' in expected) {
      expect(result).toEqual({
        ok: false,
        refusal: expect.objectContaining({
          code: 'carrier_selection_failed',
          details: expect.objectContaining({ reason: expected.reason, ...expected.details }),
        }),
      });
    } else {
      expect(
        result.ok && {
          selection: result.value.selection,
          account: result.value.account.id,
          service: result.value.service.code,
          rule: result.value.matchedRule?.priority ?? null,
        },
      ).toEqual(expected);
    }
  });
});
