/**
 * gatewayctl `admins`: list, create, rotate and delete named admins (owner only).
 *
 * Reads and sets admins through the admin API (/v1/admins); prints to stdout, including a
 * new or rotated token, which the API returns only then.
 */
import type { Command } from 'commander';
import type { AdminView, AdminWithToken } from '../../access/admin-directory';
import { table } from '../output';
import { type CommandContext, segment } from './context';

export function registerAdminCommands(program: Command, { api, show }: CommandContext): void {
  const admins = program.command('admins').description('named admins and their roles (owner only)');
  admins
    .command('list')
    .description('list named admins (the bootstrap ADMIN_TOKEN is the owner "bootstrap")')
    .action(async () => {
      const list = await api().request<AdminView[]>('GET', 'admins');
      show(list, (l) => table(['ID', 'NAME', 'ROLE', 'TOKEN PREFIX', 'CREATED'], l.map((a) => [a.id, a.name, a.role, a.tokenPrefix, a.createdAt])));
    });
  admins
    .command('create <name>')
    .description('create an admin; its token is printed this once')
    .requiredOption('--role <role>', 'viewer, operator, approver or owner')
    .option('--id <adminId>', 'the admin id (generated when absent)')
    .action(async (name: string, options: { role: string; id?: string }) => {
      const created = await api().request<AdminWithToken>('POST', 'admins', { body: { id: options.id, name, role: options.role } });
      show(created, (a) => `Created admin ${a.id} (${a.name}, ${a.role}).\nToken, shown this once; hand it over now:\n${a.token}\n`);
    });
  admins
    .command('rotate <adminId>')
    .description('give an admin a new token; the old one stops working at once')
    .action(async (adminId: string) => {
      const rotated = await api().request<AdminWithToken>('POST', `admins/${segment(adminId)}/token`);
      show(rotated, (a) => `New token for admin ${a.id}, shown this once:\n${a.token}\n`);
    });
  admins
    .command('delete <adminId>')
    .description('delete an admin; its token stops working at once')
    .action(async (adminId: string) => {
      await api().request<null>('DELETE', `admins/${segment(adminId)}`);
      show({ deleted: adminId }, () => `Deleted admin ${adminId}.\n`);
    });
}
