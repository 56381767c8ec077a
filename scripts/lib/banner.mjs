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

/** The demo's fresh orders, one a line: `#1013  home delivery  (order_id 17957940881070)`. */
export function freshOrdersText(orders) {
  if (!orders?.length) return 'none: npx labelctl demo orders add';
  const nameWidth = Math.max(...orders.map((o) => o.name.length));
  const kindWidth = Math.max(...orders.map((o) => (KIND_NAMES[o.kind] ?? o.kind).length));
  return [
    ...orders.map(
      (o) => `${o.name.padEnd(nameWidth)}  ${(KIND_NAMES[o.kind] ?? o.kind).padEnd(kindWidth)}  order_id ${o.order_id}`,
    ),
    'more: npx labelctl demo orders add',
  ].join('\n');
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
 * <pid>`), since the console goes on below it. Returns a function that stops listening.
 */
export function keepBannerAtHand(text, { input = process.stdin, output = process.stdout } = {}) {
  const reprint = () => output.write(text);
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
