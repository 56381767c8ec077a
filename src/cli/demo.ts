import { InvalidArgumentError, Option, type Command } from 'commander';
import { DEMO_ORDER_KINDS, type DemoOrderKind } from '../platform/sandbox/demo-orders';
import type { CliKit } from './kit';

/** A refusal of `labelctl demo`: one line, exit 2. */
export class DemoError extends Error {}

export const DEMO_STORE_DOMAIN = 'demo-store.myshopify.com';

const count = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 50) throw new InvalidArgumentError('expected a whole number from 1 to 50');
  return n;
};

interface AddedOrder {
  kind: DemoOrderKind;
  order: { legacy_id: string; name: string; payment_gateways: string[] };
  fulfillment_orders: Array<{ legacy_id: string }>;
}

/**
 * `labelctl demo orders add [n]`: fresh orders on the sandbox store platform (docs/sandbox.md, "Demo orders"), so the
 * demo store never runs out of orders without a label. Only the sandbox is touched: the API reads the orders from it
 * when a label is created.
 */
export function registerDemoCommands(program: Command, kit: Pick<CliKit, 'config' | 'print' | 'table'>): void {
  const demo = program.command('demo').description('the demo store of npm run dev and npm run cluster (sandbox only)');
  const orders = demo.command('orders').description("the demo store's orders on the sandbox store platform");
  orders
    .command('add [count]')
    .description(
      'add fresh orders without labels, one of each kind in turn: home, pickup_point, cod, two_fulfillment_orders',
    )
    .addOption(new Option('--kind <kind...>', 'only these kinds, in turn').choices([...DEMO_ORDER_KINDS]))
    .option('--store <domain>', 'the store on the sandbox platform', DEMO_STORE_DOMAIN)
    .action(async (countArg: string | undefined, opts: { kind?: DemoOrderKind[]; store: string }) => {
      const { env, sandboxUrl } = kit.config();
      if (env === 'production')
        throw new DemoError('demo orders live in the sandbox; refusing with NODE_ENV=production');
      const body = { ...(countArg ? { count: count(countArg) } : {}), ...(opts.kind ? { kinds: opts.kind } : {}) };
      const url = `${sandboxUrl}/_control/stores/${encodeURIComponent(opts.store)}/demo-orders`;
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
        throw new DemoError(
          `the sandbox at ${sandboxUrl} does not answer (${cause}): is npm run dev or npm run cluster running?`,
        );
      }
      const answer = (await response.json()) as { orders?: AddedOrder[]; message?: string };
      if (response.status !== 201 || !answer.orders)
        throw new DemoError(`the sandbox refused: ${response.status} ${answer.message ?? JSON.stringify(answer)}`);
      const rows = answer.orders.map((o) => ({
        order_id: o.order.legacy_id,
        name: o.order.name,
        kind: o.kind,
        fulfillment_order_ids: o.fulfillment_orders.map((f) => f.legacy_id),
      }));
      // The table joins the fulfillment order IDs with commas; --json keeps them a list.
      const tableRows = rows.map((r) => ({ ...r, fulfillment_order_ids: r.fulfillment_order_ids.join(',') }));
      kit.print(rows, () =>
        [
          `added ${rows.length} order${rows.length === 1 ? '' : 's'} to ${opts.store} (sandbox at ${sandboxUrl}):`,
          kit.table(tableRows, ['order_id', 'name', 'kind', 'fulfillment_order_ids']),
          `create a label: POST /v1/labels with {"order_id": "${rows[0]!.order_id}"} (README, "Your first label")`,
        ].join('\n'),
      );
    });
}
