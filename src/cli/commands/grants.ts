/**
 * gatewayctl `licences` (what a vendor may call) and `permissions` (what a banking-application
 * user may call): grant, list and revoke.
 *
 * Reads and sets them through the admin API (/v1/vendors/{id}/licences,
 * /v1/users/{id}/permissions); prints to stdout.
 */
import type { Command } from 'commander';
import type { Licence, Permission } from '../../access/model';
import { table } from '../output';
import { allowEmptyQuery, type CommandContext, segment } from './context';

export function registerLicenceCommands(program: Command, { api, show, showWrite }: CommandContext): void {
  const licences = program.command('licences').description('grant, list and revoke vendor licences');
  licences
    .command('grant <vendorId> <api>')
    .description('licence a vendor for an API id or pattern (GETaccounts/{accountId}, GET*)')
    .option('--expires-at <iso>', 'expiry, ISO 8601 with offset')
    .option('--id <licenceId>', 'the licence id (generated when absent)')
    .option('--allow-empty', 'grant it even if the pattern matches no API id (refused otherwise)')
    .action(async (vendorId: string, apiPattern: string, options: { expiresAt?: string; id?: string; allowEmpty?: boolean }) => {
      const licence = await api().request<Licence>('POST', `vendors/${segment(vendorId)}/licences`, {
        body: { id: options.id, api: apiPattern, expiresAt: options.expiresAt },
        query: allowEmptyQuery(options),
      });
      showWrite(licence, (l) => `Granted licence ${l.id} (${l.api}) to vendor ${vendorId}.\n`);
    });
  licences
    .command('list <vendorId>')
    .description("list a vendor's licences")
    .action(async (vendorId: string) => {
      const list = await api().request<Licence[]>('GET', `vendors/${segment(vendorId)}/licences`);
      show(list, (l) =>
        table(
          ['ID', 'API', 'EXPIRES'],
          l.map((x) => [x.id, x.api, x.expiresAt]),
        ),
      );
    });
  licences
    .command('revoke <vendorId> <licenceId>')
    .description("revoke a vendor's licence")
    .action(async (vendorId: string, licenceId: string) => {
      await api().request<null>('DELETE', `vendors/${segment(vendorId)}/licences/${segment(licenceId)}`);
      show({ revoked: licenceId }, () => `Revoked licence ${licenceId} of vendor ${vendorId}.\n`);
    });
}

export function registerPermissionCommands(program: Command, { api, show, showWrite }: CommandContext): void {
  const permissions = program.command('permissions').description('grant, list and revoke user permissions');
  permissions
    .command('grant <userId> <api>')
    .description('let a user call an API id or pattern (the user is created by the first grant)')
    .option('--id <permissionId>', 'the permission id (generated when absent)')
    .option('--allow-empty', 'grant it even if the pattern matches no API id (refused otherwise)')
    .action(async (userId: string, apiPattern: string, options: { id?: string; allowEmpty?: boolean }) => {
      const permission = await api().request<Permission>('POST', `users/${segment(userId)}/permissions`, {
        body: { id: options.id, api: apiPattern },
        query: allowEmptyQuery(options),
      });
      showWrite(permission, (p) => `Granted permission ${p.id} (${p.api}) to user ${userId}.\n`);
    });
  permissions
    .command('list <userId>')
    .description("list a user's permissions")
    .action(async (userId: string) => {
      const list = await api().request<Permission[]>('GET', `users/${segment(userId)}/permissions`);
      show(list, (l) =>
        table(
          ['ID', 'API'],
          l.map((p) => [p.id, p.api]),
        ),
      );
    });
  permissions
    .command('revoke <userId> <permissionId>')
    .description("revoke a user's permission")
    .action(async (userId: string, permissionId: string) => {
      await api().request<null>('DELETE', `users/${segment(userId)}/permissions/${segment(permissionId)}`);
      show({ revoked: permissionId }, () => `Revoked permission ${permissionId} of user ${userId}.\n`);
    });
}
