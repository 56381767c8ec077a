// The block `npm run dev` and `npm run cluster` print once everything runs: where each part answers, the demo store,
// its fresh orders and the API key, and the first requests to try.

const KIND_NAMES = {
  home: 'home delivery',
  pickup_point: 'pickup point',
  cod: 'cash on delivery',
  two_fulfillment_orders: 'two fulfillment orders',
};

/** `rows`: [label, value] pairs (a value may be several lines); `tries`: commands shown under "Try:". */
export function bannerText({ title, rows, tries, footer }) {
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  const lines = ['', `  ${title}`, ''];
  for (const [label, value] of rows) {
    const [first, ...rest] = String(value).split('\n');
    lines.push(`  ${label.padEnd(width)}${first}`);
    for (const more of rest) lines.push(`  ${' '.repeat(width)}${more}`);
  }
  lines.push('');
  tries.forEach((command, index) => lines.push(`  ${index === 0 ? 'Try:' : '    '}  ${command}`));
  lines.push('', ...footer.map((line) => `  ${line}`), '');
  return `${lines.join('\n')}\n`;
}

/** How the banner says to run labelctl from the checkout (decision 0042). */
export const LABELCTL = 'node bin/labelctl.js';

/**
 * The demo's fresh orders, one a line: `#1013  home delivery  order_id 17957940881070`; those in `labelled` (their
 * order IDs) got a label since the start and say so.
 */
export function freshOrdersText(orders, labelled = new Set()) {
  const more = `more: ${LABELCTL} demo orders add`;
  if (!orders?.length) return `none: ${LABELCTL} demo orders add`;
  const nameWidth = Math.max(...orders.map((o) => o.name.length));
  const kindWidth = Math.max(...orders.map((o) => (KIND_NAMES[o.kind] ?? o.kind).length));
  const line = (o) =>
    `${o.name.padEnd(nameWidth)}  ${(KIND_NAMES[o.kind] ?? o.kind).padEnd(kindWidth)}  order_id ${o.order_id}` +
    (labelled.has(o.order_id) ? '  (has a label now)' : '');
  const used = orders.filter((o) => labelled.has(o.order_id)).length;
  return [...orders.map(line), used === orders.length ? `all used; ${more}` : more].join('\n');
}

/**
 * The order IDs among `orders` that have a label now, read from the API with the demo key (the banner is printed
 * again later, when some were used). An API that does not answer counts none as used.
 */
export async function labelledOrders({ base, apiKey, orders }) {
  if (!orders?.length) return new Set();
  const ids = orders.map((o) => o.order_id).join(',');
  try {
    const response = await fetch(`${base}/v1/labels?order_id=${ids}&limit=250`, {
      headers: { authorization: `Bearer ${apiKey}` },
      signal: AbortSignal.timeout(5000),
    });
    if (!response.ok) return new Set();
    const { data } = await response.json();
    return new Set(data.map((label) => label.order.legacy_id));
  } catch {
    return new Set();
  }
}

/** The requests a newcomer tries first: the shop, then a label for the first fresh order and its PDF. */
export function firstRequests({ base, apiKey, orders }) {
  const auth = `-H "Authorization: Bearer ${apiKey}"`;
  const first = orders?.[0];
  return [
    `curl ${auth} ${base}/v1/shop`,
    ...(first
      ? [
          `curl ${auth} -H "Idempotency-Key: first-label-${first.order_id}" -H "Content-Type: application/json" \\`,
          `     -d '{"order_id":"${first.order_id}"}' ${base}/v1/labels`,
        ]
      : []),
  ];
}

/**
 * Prints the banner again when Enter is pressed in the terminal (stdin a TTY) or the process gets SIGUSR2 (`kill -USR2
 * <pid>`), since the console goes on below it. `banner`: the text, or a function that renders it as it is now (a
 * promise of it). Returns a function that stops listening.
 */
export function keepBannerAtHand(banner, { input = process.stdin, output = process.stdout } = {}) {
  const reprint = () =>
    void Promise.resolve(typeof banner === 'function' ? banner() : banner).then((text) => output.write(text));
  process.on('SIGUSR2', reprint);
  const onData = () => reprint();
  if (input.isTTY) {
    input.on('data', onData);
    input.resume();
  }
  return () => {
    process.off('SIGUSR2', reprint);
    input.off('data', onData);
    input.pause();
  };
}
