import { BadRequest, json, sleep, type Reply, type Router, type SandboxRequest } from '../../../sandbox/http';
import type { FieldFault } from '../faults';
import { labelFormat, positionsPerPage } from '../label-formats';
import { childOf, element, elements, parseXml, renderXml, XmlSyntaxError, type XmlElement } from '../xml';
import { renderLabels } from './render';
import { checkClaimAttributes, checkPacketAttributes } from './rules';
import {
  accountBodySchema,
  API_PASSWORD,
  fakeFaultSchema,
  FakePacketaState,
  packetToWire,
  type FakeAccount,
  type FakeCall,
  type FakePacket,
} from './state';

/**
 * The fake Packeta, served by the sandbox the way Packeta serves its REST/XML API (docs `getting-started/
 * packeta-api`): `POST /packeta/api/rest` with the method as the root element and the API password first; answers
 * `<response><status>ok</status><result>…` or `<status>fault</status>` with `fault`, `string` and `detail`, over HTTP
 * 200. Its control API under `/_control/packeta/` registers client accounts, scripts faults and lists what was made
 * (docs/carriers/packeta.md, "The fake Packeta").
 */

const xmlReply = (root: XmlElement, status = 200): Reply => ({
  kind: 'raw',
  status,
  contentType: 'text/xml; charset=utf-8',
  body: renderXml(root),
});

const ok = (result: XmlElement[] | string): Reply =>
  xmlReply(element('response', [element('status', 'ok'), element('result', result)]));

function fault(name: string, text: string, detail: XmlElement[] = []): Reply {
  const parts = [element('status', 'fault'), element('fault', name), element('string', text)];
  return xmlReply(element('response', detail.length > 0 ? [...parts, element('detail', detail)] : parts));
}

const attributesFault = (faults: FieldFault[]): Reply =>
  fault('PacketAttributesFault', 'Failed to validate attributes. See detail.', [
    element(
      'attributes',
      faults.map((f) => element('fault', [element('name', f.name), element('fault', f.fault)])),
    ),
  ]);

/** A struct's members as element name to text (every member Packeta takes travels as text). */
const fieldsOf = (struct: XmlElement | undefined): Record<string, string> =>
  Object.fromEntries((struct?.children ?? []).map((c) => [c.name, c.text]));

const barcodeText = (id: string) => `Z ${id.slice(0, 3)} ${id.slice(3, 7)} ${id.slice(7)}`;

interface Call {
  account: FakeAccount;
  args: XmlElement;
}

/** The scripted fault for a call, as Packeta's transport would show it; null when the call goes on. */
async function scripted(state: FakePacketaState, account: FakeAccount, call: FakeCall, make?: () => void) {
  const f = state.takeFault(account, call);
  switch (f?.type) {
    case 'slow':
      await sleep(f.delay_ms);
      return null;
    case 'timeout_created':
      make?.();
      return { kind: 'drop', afterMs: f.hold_ms } satisfies Reply;
    case 'timeout_not_created':
      return { kind: 'drop', afterMs: f.hold_ms } satisfies Reply;
    case 'server_error':
    case 'render_error':
      return { kind: 'raw', status: 500, contentType: 'text/html', body: 'Internal Server Error' } satisfies Reply;
    case 'fault':
      return f.fields.length > 0 ? attributesFault(f.fields) : fault(f.fault!, f.text ?? 'Scripted fault');
    default:
      return null;
  }
}

function newPacket(state: FakePacketaState, kind: FakePacket['kind'], fields: Record<string, string>): FakePacket {
  const id = state.nextId();
  return {
    kind,
    id,
    barcode: `Z${id}`,
    number: fields.number ?? '',
    attributes: fields,
    currency: null,
    password: null,
    statusCode: 1,
    labelCalls: 0,
    createdAt: new Date(),
  };
}

function packetAnswer(p: FakePacket): Reply {
  const detail = { id: p.id, barcode: p.barcode, barcodeText: barcodeText(p.id), password: p.password };
  return ok(elements(detail));
}

async function createPacket(state: FakePacketaState, { account, args }: Call, validateOnly: boolean): Promise<Reply> {
  const fields = fieldsOf(childOf(args, 'packetAttributes'));
  const check = checkPacketAttributes(fields, account);
  const faults = [...check.faults];
  if (!account.approved)
    faults.push({ name: 'user_id', fault: 'The client account is not approved for posting parcels.' });
  if (!fields.eshop && account.senders.size > 1)
    faults.push({ name: 'eshop', fault: 'the account has several senders: name one' });
  if (faults.length > 0) return attributesFault(faults);
  if (validateOnly) return ok('');
  const packet = { ...newPacket(state, 'packet', fields), currency: check.currency };
  const make = () => {
    // Docs: an `eshop` that is not a sender of the account yet becomes one.
    if (fields.eshop) account.senders.add(fields.eshop);
    account.packets.push(packet);
  };
  const interrupted = await scripted(state, account, 'create', make);
  if (interrupted) return interrupted;
  make();
  return packetAnswer(packet);
}

async function createClaim(state: FakePacketaState, { account, args }: Call): Promise<Reply> {
  const fields = fieldsOf(childOf(args, 'claimWithPasswordAttributes'));
  const faults = checkClaimAttributes(fields);
  if (faults.length > 0) return attributesFault(faults);
  if (fields.sendEmailToCustomer === 'true' && !/^.+@.+\..+$/.test(fields.email ?? ''))
    return fault('PacketEmailNotFilled', 'The packet has no valid e-mail to send the password to.');
  const interrupted = await scripted(state, account, 'claim');
  if (interrupted) return interrupted;
  const claim = newPacket(state, 'claim', fields);
  claim.currency = fields.currency ?? null;
  claim.password = `P${claim.id.slice(-5)}`;
  account.packets.push(claim);
  return packetAnswer(claim);
}

/** Docs examples pass packet IDs with and without the `Z` of the barcode. */
const findPacket = (account: FakeAccount, id: string) => account.packets.find((p) => p.id === id.replace(/^Z/, ''));

async function packetStatus(state: FakePacketaState, { account, args }: Call): Promise<Reply> {
  const interrupted = await scripted(state, account, 'status');
  if (interrupted) return interrupted;
  const packet = findPacket(account, childOf(args, 'packetId')?.text ?? '');
  if (!packet) return fault('PacketIdFault', 'Invalid packet id.');
  const record = { dateTime: packet.createdAt.toISOString().slice(0, 19), statusCode: packet.statusCode };
  return ok(
    elements({
      ...record,
      codeText: 'received data',
      statusText: 'Data received',
      branchId: '0',
      destinationBranchId: packet.attributes.addressId ?? '0',
      externalTrackingCode: '',
      isReturning: 'false',
      storedUntil: '',
    }),
  );
}

async function labels(state: FakePacketaState, { account, args }: Call, several: boolean): Promise<Reply> {
  const interrupted = await scripted(state, account, 'label');
  if (interrupted) return interrupted;
  const ids = several
    ? (childOf(args, 'packetIds')?.children ?? []).map((c) => c.text)
    : [childOf(args, 'packetId')?.text ?? ''];
  if (several && ids.length === 0) return fault('NoPacketIdsFault', 'No packet ids given.');
  const packets = ids.map((id) => findPacket(account, id));
  const unknown = ids.filter((_, i) => !packets[i]);
  if (unknown.length > 0) {
    if (!several) return fault('PacketIdFault', 'Invalid packet id.');
    return fault('PacketIdsFault', 'Invalid packet ids.', [
      element(
        'ids',
        unknown.map((id) => element('packetId', id)),
      ),
    ]);
  }
  const format = labelFormat(childOf(args, 'format')?.text ?? '');
  const offset = Number(childOf(args, 'offset')?.text ?? '0');
  // Undocumented: an offset past the format's positions. The fake refuses it as an unknown layout (docs/carriers).
  if (!format || !Number.isInteger(offset) || offset < 0 || offset >= positionsPerPage(format))
    return fault('UnknownLabelFormatFault', 'Unknown label format.');
  for (const p of packets) p!.labelCalls += 1;
  const pdf = await renderLabels(packets as FakePacket[], format, offset);
  return ok(Buffer.from(pdf).toString('base64'));
}

async function returnRouting(state: FakePacketaState, { account, args }: Call): Promise<Reply> {
  const interrupted = await scripted(state, account, 'check');
  if (interrupted) return interrupted;
  const sender = childOf(args, 'senderLabel')?.text ?? '';
  if (!account.senders.has(sender)) return fault('SenderNotExists', 'Sender does not exist.');
  return ok([element('routingSegment', 'C99-999-999'), element('routingSegment', `${sender.slice(0, 16)} return`)]);
}

const METHODS: Record<string, (state: FakePacketaState, call: Call) => Promise<Reply>> = {
  createPacket: (state, call) => createPacket(state, call, false),
  packetAttributesValid: (state, call) => createPacket(state, call, true),
  createPacketClaimWithPassword: createClaim,
  packetStatus,
  packetLabelPdf: (state, call) => labels(state, call, false),
  packetsLabelsPdf: (state, call) => labels(state, call, true),
  senderGetReturnRouting: returnRouting,
};

async function restCall(state: FakePacketaState, request: SandboxRequest): Promise<Reply> {
  let root: XmlElement;
  try {
    root = parseXml(request.rawBody);
  } catch (error) {
    if (error instanceof XmlSyntaxError)
      return { kind: 'raw', status: 400, contentType: 'text/plain', body: error.message };
    throw error;
  }
  const method = METHODS[root.name];
  if (!method) return { kind: 'raw', status: 400, contentType: 'text/plain', body: `unknown method ${root.name}` };
  const password = childOf(root, 'apiPassword')?.text ?? '';
  const account = state.account(password);
  if (!account) return fault('IncorrectApiPasswordFault', 'Incorrect API password.');
  return method(state, { account, args: root });
}

export function registerFakePacketa(router: Router, state = new FakePacketaState()): FakePacketaState {
  router.add('POST', '/packeta/api/rest', (request) => restCall(state, request));
  const base = '/_control/packeta/accounts/:password';
  const known = (request: SandboxRequest) => {
    const account = state.account(request.params.password!);
    if (!account) throw new BadRequest('no such fake Packeta account: PUT it first');
    return account;
  };
  router.add('PUT', base, async (request) => {
    if (!API_PASSWORD.test(request.params.password!)) throw new BadRequest('an API password is 32 of [a-z0-9]');
    const parsed = accountBodySchema.safeParse(request.body ?? {});
    if (!parsed.success) throw new BadRequest('account body is invalid', parsed.error.issues);
    const account = state.register(request.params.password!, parsed.data);
    return json(200, {
      senders: [...account.senders],
      approved: account.approved,
      currency_conversions: [...account.conversions],
    });
  });
  router.add('DELETE', base, async (request) => {
    state.forget(request.params.password!);
    return json(200, { forgotten: true });
  });
  router.add('POST', `${base}/faults`, async (request) => {
    const body = request.body as { faults?: unknown } | undefined;
    const parsed = fakeFaultSchema.array().min(1).max(50).safeParse(body?.faults);
    if (!parsed.success) throw new BadRequest('faults body is invalid', parsed.error.issues);
    const account = known(request);
    account.faults.push(
      ...parsed.data.map((f) => ({ ...f, call: f.call ?? (f.type === 'render_error' ? 'label' : 'create') })),
    );
    return json(201, { faults: account.faults });
  });
  router.add('GET', `${base}/packets`, async (request) =>
    json(200, { packets: known(request).packets.map(packetToWire) }),
  );
  return state;
}
