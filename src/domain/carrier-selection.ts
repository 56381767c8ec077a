import type {
  ContextCarrierAccount,
  ContextOrder,
  ContextRule,
  ContextRuleConditions,
  ContextService,
} from './creation-context';
import type { CreationRequest } from './creation-request';
import { decided, refusal, refused, type Decided } from './refusal';

/** How the account and service were chosen (`resolved.selection`, docs/decisions/0115-carrier-selection.md). */
export const SELECTIONS = ['auto', 'requested_account', 'requested'] as const;
export type Selection = (typeof SELECTIONS)[number];

export interface CarrierSelection {
  selection: Selection;
  matchedRule: { id: string; priority: number } | null;
  account: ContextCarrierAccount;
  service: ContextService;
}

/** What rules match on, besides the order itself. */
export interface RuleFacts {
  order: ContextOrder;
  /** Currency of the label (`service/currency`, else the order currency). */
  labelCurrency: string;
  /** Whether the order has COD to collect, decided without the carrier (request, metafield, gateway, store rule). */
  codRequired: boolean;
}

/** The country the parcel goes to: the pickup point's, else the shipping address's. */
function destinationCountry(order: ContextOrder): string | null {
  return order.deliveryMethod.pickupPoint?.country ?? order.shippingAddress?.country ?? null;
}

const listed = (list: readonly string[] | undefined, value: string | null, fold = false): boolean => {
  if (!list || list.length === 0) return true;
  if (value === null) return false;
  const v = fold ? value.toLowerCase() : value;
  return list.some((item) => (fold ? item.toLowerCase() : item) === v);
};

/** Every given condition must hold; absent conditions and empty lists match any order. */
export function ruleMatches(conditions: ContextRuleConditions, facts: RuleFacts): boolean {
  const { order } = facts;
  return (
    listed(conditions.deliveryMethodTypes, order.deliveryMethod.type) &&
    listed(conditions.countryCodes, destinationCountry(order), true) &&
    listed(conditions.shippingMethodNames, order.deliveryMethod.title, true) &&
    listed(conditions.currencies, facts.labelCurrency, true) &&
    (conditions.hasPickupPoint === undefined ||
      conditions.hasPickupPoint === (order.deliveryMethod.pickupPoint !== null)) &&
    (conditions.codRequired === undefined || conditions.codRequired === facts.codRequired) &&
    (!conditions.tagsAny ||
      conditions.tagsAny.length === 0 ||
      conditions.tagsAny.some((tag) => order.tags.some((t) => t.toLowerCase() === tag.toLowerCase())))
  );
}

/**
 * The service of an account when no rule and no request names one: the account's only service, else its only service
 * that fits the order's delivery (a pickup-point service for an order with a pickup point, a home service otherwise).
 */
export function fittingService(account: ContextCarrierAccount, hasPickupPoint: boolean): ContextService | null {
  if (account.services.length === 1) return account.services[0]!;
  const fitting = account.services.filter((s) => s.pickupPointRequired === hasPickupPoint);
  return fitting.length === 1 ? fitting[0]! : null;
}

const candidates = (accounts: readonly ContextCarrierAccount[]) =>
  accounts.map((a) => ({ carrier_account_id: a.id, carrier: a.carrierCode }));

function failed(reason: string, message: string, details: Record<string, unknown> = {}): Decided<never> {
  return refused(refusal('carrier_selection_failed', message, { reason, ...details }));
}

const notEnabled = (account: ContextCarrierAccount) =>
  failed('carrier_not_enabled', `Label creation through the API is not enabled for carrier account ${account.id}.`, {
    carrier_account_id: account.id,
  });

function serviceOf(account: ContextCarrierAccount, code: string): Decided<ContextService> {
  const service = account.services.find((s) => s.code === code);
  if (!service) {
    return failed(
      'service_not_creatable',
      `Carrier account ${account.id} has no service ${JSON.stringify(code)} that labels can be created with.`,
      { carrier_account_id: account.id, service_code: code },
    );
  }
  return decided(service);
}

/**
 * Spec `POST /labels` `carrier_account_id` / `service_code` ("chosen by rules") and `carrier_selection_failed`: an
 * explicit account (and service) is checked; otherwise the store's rules, lowest priority first, pick both; a store
 * without rules and with one usable account uses it.
 */
export function selectCarrier(
  accounts: readonly ContextCarrierAccount[],
  rules: readonly ContextRule[],
  facts: RuleFacts,
  request: Pick<CreationRequest, 'carrierAccountId' | 'serviceCode'>,
): Decided<CarrierSelection> {
  const ordered = [...rules].sort((a, b) => a.priority - b.priority);
  const matching = ordered.filter((r) => ruleMatches(r.conditions, facts));
  const hasPickupPoint = facts.order.deliveryMethod.pickupPoint !== null;

  if (request.carrierAccountId !== null) {
    const account = accounts.find((a) => a.id === request.carrierAccountId);
    if (!account) {
      return failed('carrier_account_not_found', 'The store has no such carrier account.', {
        carrier_account_id: request.carrierAccountId,
      });
    }
    if (account.apiCreation !== 'enabled') return notEnabled(account);
    if (request.serviceCode !== null) {
      const service = serviceOf(account, request.serviceCode);
      return service.ok
        ? decided({ selection: 'requested', matchedRule: null, account, service: service.value })
        : service;
    }
    const rule = matching.find((r) => r.carrierAccountId === account.id);
    if (rule) {
      const service = serviceOf(account, rule.serviceCode);
      return service.ok
        ? decided({
            selection: 'requested_account',
            matchedRule: { id: rule.id, priority: rule.priority },
            account,
            service: service.value,
          })
        : service;
    }
    const service = fittingService(account, hasPickupPoint);
    if (!service) {
      return failed(
        'service_unresolved',
        `No rule names a service of carrier account ${account.id} for this order and it has several; send service_code.`,
        { carrier_account_id: account.id },
      );
    }
    return decided({ selection: 'requested_account', matchedRule: null, account, service });
  }

  if (accounts.length === 0) {
    return failed('no_carrier_accounts', 'The store has no carrier accounts; connect a carrier in the app first.');
  }
  const enabled = accounts.filter((a) => a.apiCreation === 'enabled');
  const rule = matching[0];
  if (rule) {
    const account = accounts.find((a) => a.id === rule.carrierAccountId);
    if (!account) {
      return failed(
        'carrier_account_not_found',
        `Rule ${rule.priority} names a carrier account that no longer exists.`,
        {
          carrier_account_id: rule.carrierAccountId,
        },
      );
    }
    if (account.apiCreation !== 'enabled') return notEnabled(account);
    const service = serviceOf(account, rule.serviceCode);
    return service.ok
      ? decided({
          selection: 'auto',
          matchedRule: { id: rule.id, priority: rule.priority },
          account,
          service: service.value,
        })
      : service;
  }
  if (ordered.length > 0) {
    return failed(
      'no_matching_rule',
      'None of the store’s carrier rules matches this order; send carrier_account_id (and service_code).',
      { candidates: candidates(enabled) },
    );
  }
  if (enabled.length === 0) {
    return accounts.length === 1
      ? notEnabled(accounts[0]!)
      : failed(
          'carrier_not_enabled',
          'Label creation through the API is enabled for none of the store’s carrier accounts.',
          {
            candidates: candidates(accounts),
          },
        );
  }
  if (enabled.length > 1) {
    return failed(
      'ambiguous_accounts',
      'The store has several carrier accounts and no rules; send carrier_account_id.',
      { candidates: candidates(enabled) },
    );
  }
  const account = enabled[0]!;
  const service = fittingService(account, hasPickupPoint);
  if (!service) {
    return failed(
      'service_unresolved',
      `Carrier account ${account.id} has several services and no rule chooses one; send carrier_account_id and service_code.`,
      { carrier_account_id: account.id },
    );
  }
  return decided({ selection: 'auto', matchedRule: null, account, service });
}
