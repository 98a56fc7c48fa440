/**
 * gatewayctl `vendors` (list, create, suspend, resume, delete) and `rate-limit set`.
 *
 * Reads and sets vendors through the admin API (/v1/vendors); prints to stdout. Like `keys
 * revoke` and `admins delete`, `vendors delete` asks nothing first (scripts run it); it prints
 * what went with the vendor.
 */
import type { Command } from 'commander';
import type { VendorView } from '../../admin/operations/access-service';
import { table } from '../output';
import { type CommandContext, segment, wholeNumber } from './context';

export function registerVendorCommands(program: Command, { api, show, showWrite }: CommandContext): void {
  const vendors = program.command('vendors').description('list, create, suspend, resume and delete vendors');
  vendors
    .command('list')
    .description('list vendors')
    .action(async () => {
      const list = await api().request<VendorView[]>('GET', 'vendors');
      show(list, (l) =>
        table(
          ['ID', 'NAME', 'STATUS', 'RATE LIMIT', 'LICENCES', 'KEYS'],
          l.map((v) => [
            v.id,
            v.name,
            v.status,
            v.rateLimit ? `${v.rateLimit.points}/${v.rateLimit.durationSeconds}s` : undefined,
            v.licences.length,
            // Revoked keys stay listed; the count is of keys that can still call.
            v.keys.filter((k) => k.status === 'active').length,
          ]),
        ),
      );
    });
  vendors
    .command('create <vendorId>')
    .description('create a vendor')
    .requiredOption('--name <name>', "the vendor's display name")
    .option('--points <n>', 'rate limit: requests per window', wholeNumber)
    .option('--duration-seconds <n>', 'rate limit: window length in seconds', wholeNumber)
    .option('--suspended', 'create it suspended')
    .action(async (vendorId: string, options: { name: string; points?: number; durationSeconds?: number; suspended?: boolean }) => {
      // Half a rate limit is sent as it is, for the API to refuse with its field error.
      const rateLimit =
        options.points === undefined && options.durationSeconds === undefined
          ? undefined
          : { points: options.points, durationSeconds: options.durationSeconds };
      const vendor = await api().request<VendorView>('POST', 'vendors', {
        body: { id: vendorId, name: options.name, status: options.suspended ? 'suspended' : 'active', rateLimit },
      });
      showWrite(vendor, (v) => `Created vendor ${v.id} (${v.status}).\n`);
    });
  for (const [verb, status] of [
    ['suspend', 'suspended'],
    ['resume', 'active'],
  ] as const) {
    vendors
      .command(`${verb} <vendorId>`)
      .description(`${verb} a vendor (status ${status})`)
      .action(async (vendorId: string) => {
        const vendor = await api().request<VendorView>('PATCH', `vendors/${segment(vendorId)}`, { body: { status } });
        showWrite(vendor, (v) => `Vendor ${v.id} is ${v.status}.\n`);
      });
  }
  vendors
    .command('delete <vendorId>')
    .description('delete a vendor with its keys and licences, at once (users and their permissions stay)')
    .action(async (vendorId: string) => {
      // Read first, to say what went: the API answers a deletion with no body.
      const vendor = await api().request<VendorView>('GET', `vendors/${segment(vendorId)}`);
      await api().request<null>('DELETE', `vendors/${segment(vendorId)}`);
      const active = vendor.keys.filter((k) => k.status === 'active').length;
      const deleted = {
        deleted: vendor.id,
        name: vendor.name,
        licences: vendor.licences.map((l) => l.id),
        keys: vendor.keys.map((k) => k.id),
        activeKeys: active,
      };
      show(deleted, (d) => {
        const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
        return `Deleted vendor ${d.deleted} (${d.name}) with ${plural(d.licences.length, 'licence')} and ${plural(d.keys.length, 'key')} (${active} active).\n`;
      });
    });
}

export function registerRateLimitCommands(program: Command, { api, showWrite }: CommandContext): void {
  program
    .command('rate-limit')
    .description("set vendors' rate limits")
    .command('set <vendorId>')
    .description("set a vendor's rate limit")
    .requiredOption('--points <n>', 'requests per window', wholeNumber)
    .requiredOption('--duration-seconds <n>', 'window length in seconds', wholeNumber)
    .action(async (vendorId: string, options: { points: number; durationSeconds: number }) => {
      const limit = await api().request<{ points: number; durationSeconds: number }>('PUT', `vendors/${segment(vendorId)}/rate-limit`, {
        body: { points: options.points, durationSeconds: options.durationSeconds },
      });
      showWrite(limit, (l) => `Vendor ${vendorId} may make ${l.points} requests per ${l.durationSeconds} s.\n`);
    });
}
