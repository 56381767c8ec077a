// A merchant's program using the packed client (the packed-client test installs the package into a project of its own
// and type-checks and runs this file against the service). `create`: a label for an order, its PDF, the order's labels;
// `verify <file>`: a received webhook delivery ({ headers, body }) checked against the endpoint's secret.
import { readFile, writeFile } from 'node:fs/promises';
import {
  createLabel,
  createShippingLabelClient,
  labelPages,
  ShippingLabelApiError,
  verifyWebhookSignature,
  type Label,
  type LabelCreation,
} from '@shipping-label-api/client';

const api = createShippingLabelClient({
  baseUrl: process.env.SHIPPING_LABEL_API_URL!, // your {base_url}, ending in /v1
  apiKey: process.env.SHIPPING_LABEL_API_KEY!,
});

async function create(orderId: string): Promise<void> {
  let creation: LabelCreation;
  try {
    creation = await createLabel(api, { order_id: orderId });
  } catch (error) {
    if (error instanceof ShippingLabelApiError) console.error(`refused: ${error.code} (${error.requestId})`);
    throw error;
  }
  const label: Label | undefined = creation.labels[0];
  if (creation.status !== 'succeeded' || !label) throw new Error(`creation ${creation.id} is ${creation.status}`);

  const pdf = await api.GET('/labels/{label_id}/document', {
    params: { path: { label_id: label.id } },
    parseAs: 'arrayBuffer',
  });
  if (pdf.error) throw new ShippingLabelApiError(pdf.response.status, pdf.error, pdf.response.headers);
  await writeFile(`label-${label.id}.pdf`, new Uint8Array(pdf.data));

  const listed: string[] = [];
  for await (const page of labelPages(api, { order_id: orderId })) listed.push(...page.data.map((l) => l.id));

  const pdfStart = new TextDecoder().decode(new Uint8Array(pdf.data).slice(0, 5));
  console.log(
    JSON.stringify({ creation_id: creation.id, status: creation.status, label_id: label.id, pdfStart, listed }),
  );
}

async function verify(file: string): Promise<void> {
  const delivery = JSON.parse(await readFile(file, 'utf8')) as { headers: Record<string, string>; body: string };
  const verified = verifyWebhookSignature({
    header: delivery.headers['shipping-label-signature'],
    body: delivery.body, // the raw body, exactly as received
    secret: process.env.WEBHOOK_SECRET!,
  });
  const topic = verified.ok ? (JSON.parse(delivery.body) as { topic: string }).topic : null;
  console.log(JSON.stringify({ verified, topic }));
}

const [mode, argument] = process.argv.slice(2);
await (mode === 'verify' ? verify(argument!) : create(argument!));
