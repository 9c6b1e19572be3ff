import type { Command } from 'commander';
import { DELIVERY_STATUSES, type DeliveryStatus } from '@cronsvc/contracts';
import { fetchPages, pageNote, withPaging, type PageFlags } from '../options.js';
import { deliveriesTable } from '../output/notifications-view.js';
import { example, withContext } from './shared.js';

type ListFlags = PageFlags & { status?: DeliveryStatus; execution?: string };

export function registerDeliveries(program: Command): void {
  const deliveries = program.command('deliveries').description('notifications and callbacks sent, or being sent');
  example(deliveries, 'cronsvc deliveries list --status failed');

  example(
    withPaging(deliveries.command('list').description('list deliveries'))
      .option('--status <status>', `only this status (${DELIVERY_STATUSES.join(', ')})`)
      .option('--execution <id>', 'only the deliveries of this execution')
      .action(
        withContext(async ({ client, out }, flags: ListFlags) => {
          const page = await fetchPages(
            (q) => (flags.execution ? client.executions.notifications(flags.execution, { ...q, status: flags.status }) : client.deliveries.list({ ...q, status: flags.status })),
            flags,
          );
          out.result(page, (p) => deliveriesTable(out.paint, p) + pageNote(p));
        }),
      ),
    'cronsvc deliveries list --status failed',
    'cronsvc deliveries list --execution exe_123',
  );
  example(
    deliveries
      .command('retry <id>')
      .description('start a new round of attempts for a failed delivery')
      .action(withContext(async ({ client, out }, id: string) => out.result(await client.deliveries.retry(id), (d) => `${d.id} ${out.paint(d.status, 'yellow')}`))),
    'cronsvc deliveries retry dlv_123',
  );
}
