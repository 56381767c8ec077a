import { httpCall, HttpCallError } from '../../net/http-call';
import { CarrierTimeoutError, CarrierUnavailableError } from '../port';
import type { FieldFault } from './faults';
import type { PacketaEndpoint } from './types';
import { childOf, element, parseXml, renderXml, textOf, XmlSyntaxError, type XmlElement } from './xml';

/** The calls the adapter makes, named for errors; `label` makes a server error a render error. */
export type PacketaOperation = 'create' | 'status' | 'label' | 'claim' | 'check';

/** Packeta's methods the service calls: the faults table lists the faults these raise, and no others. */
export const PACKETA_METHODS = [
  'createPacket',
  'packetStatus',
  'packetLabelPdf',
  'packetsLabelsPdf',
  'createPacketClaimWithPassword',
  'senderGetReturnRouting',
] as const;
export type PacketaMethod = (typeof PACKETA_METHODS)[number];

/**
 * Packeta answered `<status>fault</status>`: its fault class, its text (for the logs only, never for API clients) and
 * the structured detail the docs give for the faults that have one.
 */
export class PacketaFault extends Error {
  override readonly name = 'PacketaFault';
  constructor(
    readonly fault: string,
    readonly text: string,
    /** `PacketAttributesFault`: each field and what is wrong with it. */
    readonly fields: FieldFault[],
    /** `PacketIdsFault`: the IDs Packeta did not accept. */
    readonly ids: string[],
  ) {
    super(`Packeta answered ${fault}`);
  }
}

function faultOf(response: XmlElement): PacketaFault {
  const detail = childOf(response, 'detail');
  const attributes = detail ? childOf(detail, 'attributes') : undefined;
  const fields = (attributes?.children ?? [])
    .filter((c) => c.name === 'fault')
    .map((c) => ({ name: textOf(c, 'name') ?? '', fault: textOf(c, 'fault') ?? '' }));
  const idList = detail ? childOf(detail, 'ids') : undefined;
  const ids = (idList?.children ?? []).map((c) => c.text);
  return new PacketaFault(textOf(response, 'fault') ?? '', textOf(response, 'string') ?? '', fields, ids);
}

/**
 * One call of Packeta's REST/XML API (docs `getting-started/packeta-api`): a POST whose root element is the method
 * and whose children are its arguments, the API password first. The answer's `<result>` on `ok`; a PacketaFault on
 * `fault`. No answer is a CarrierTimeoutError (a create's outcome is then unknown); an HTTP error or an answer that
 * is not Packeta's envelope is a CarrierUnavailableError.
 */
export async function callPacketa(
  endpoint: PacketaEndpoint,
  method: PacketaMethod,
  apiPassword: string,
  args: XmlElement[],
  operation: PacketaOperation,
): Promise<XmlElement> {
  const body = renderXml(element(method, [element('apiPassword', apiPassword), ...args]));
  let answer;
  try {
    answer = await httpCall({
      url: endpoint.url,
      method: 'POST',
      headers: { 'content-type': 'text/xml; charset=utf-8', accept: 'text/xml' },
      body,
      timeoutMs: endpoint.timeoutMs,
    });
  } catch (error) {
    if (error instanceof HttpCallError) throw new CarrierTimeoutError(operation);
    throw error;
  }
  const failed = operation === 'label' ? 'render_error' : 'carrier_error';
  // Packeta answers its faults with 200 (observed; undocumented): any other status is the service failing.
  if (answer.status !== 200) throw new CarrierUnavailableError(failed, answer.status);
  let response: XmlElement;
  try {
    response = parseXml(answer.bytes.toString('utf8'));
  } catch (error) {
    if (error instanceof XmlSyntaxError) throw new CarrierUnavailableError(failed, answer.status);
    throw error;
  }
  const status = textOf(response, 'status');
  if (status === 'fault') throw faultOf(response);
  if (status !== 'ok') throw new CarrierUnavailableError(failed, answer.status);
  return childOf(response, 'result') ?? element('result');
}
