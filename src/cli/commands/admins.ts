/**
 * gatewayctl `admins`: list, create, delete, revoke and re-enrol named admins, block and unblock
 * single-sign-on admins (owner only);
 * `enrol`, which redeems an enrolment code (no ADMIN_TOKEN needed); `rotate`, which gives the
 * signed-in admin a new token of their own.
 *
 * Reads and sets admins through the admin API (/v1/admins, /v1/me/token); prints to stdout an
 * enrolment code (to the owner who creates or re-enrols an admin) or a token (to the admin who
 * enrols or rotates their own), each of which the API returns only then.
 */
import type { Command } from 'commander';
import type { AdminWithToken } from '../../admin/operations/admin-directory';
import type { AdminView } from '../../admin/operations/admin-identity';
import { table } from '../output';
import { type CommandContext, segment } from './context';

/** What creating or re-enrolling answers: the admin (applied) or a proposal, with the code. */
type WithCode = { enrolmentCode: string } & ({ status: 'pending'; id: string; target: string } | (AdminView & { enrolmentExpiresAt?: string }));

function codeText(answer: WithCode, done: string): string {
  if (answer.status === 'pending') {
    return `Filed for approval as change ${answer.id} (${answer.target}). Once approved, this enrolment code works for 24 h, once; hand it over now:\n${answer.enrolmentCode}\n`;
  }
  return `${done}\nEnrolment code, valid once until ${answer.enrolmentExpiresAt ?? '24 h from now'}; hand it to the admin, who runs \`gatewayctl admins enrol <code>\`:\n${answer.enrolmentCode}\n`;
}

export function registerAdminCommands(program: Command, { api, anonymousApi, show }: CommandContext): void {
  const admins = program.command('admins').description('named admins and their roles');
  admins
    .command('list')
    .description('list named admins (the bootstrap ADMIN_TOKEN is the owner "bootstrap")')
    .action(async () => {
      const list = await api().request<AdminView[]>('GET', 'admins');
      show(list, (l) =>
        table(
          ['ID', 'NAME', 'ROLE', 'SIGNS IN WITH', 'STATUS', 'TOKEN PREFIX', 'CREATED'],
          l.map((a) => [
            a.id,
            a.name,
            a.role,
            a.source === 'oidc' ? `single sign-on${a.email ? ` (${a.email})` : ''}` : 'token',
            a.status,
            a.tokenPrefix ?? '',
            a.createdAt,
          ]),
        ),
      );
    });
  admins
    .command('create <name>')
    .description('create an admin; prints its one-time enrolment code (never a token)')
    .requiredOption('--role <role>', 'viewer, operator, approver or owner')
    .option('--id <adminId>', 'the admin id (generated when absent)')
    .action(async (name: string, options: { role: string; id?: string }) => {
      const created = await api().request<WithCode>('POST', 'admins', { body: { id: options.id, name, role: options.role } });
      show(created, (a) => codeText(a, a.status === 'pending' ? '' : `Created admin ${a.id} (${a.name}, ${a.role}).`));
    });
  admins
    .command('enrol <enrolmentCode>')
    .description('redeem an enrolment code for your own token (needs no ADMIN_TOKEN)')
    .action(async (enrolmentCode: string) => {
      const enrolled = await anonymousApi().request<AdminWithToken>('POST', 'admins/enrol', { body: { enrolmentCode } });
      show(enrolled, (a) => `Enrolled as admin ${a.id} (${a.role}). Your token, shown this once; export it as ADMIN_TOKEN:\n${a.token}\n`);
    });
  admins
    .command('rotate')
    .description('give yourself (the admin of ADMIN_TOKEN) a new token; the old one stops working at once')
    .action(async () => {
      const rotated = await api().request<AdminWithToken>('POST', 'me/token');
      show(rotated, (a) => `New token for admin ${a.id}, shown this once:\n${a.token}\n`);
    });
  admins
    .command('revoke <adminId>')
    .description("take an admin's token away at once (they need re-enrolment to sign in again)")
    .action(async (adminId: string) => {
      const revoked = await api().request<AdminView>('POST', `admins/${segment(adminId)}/token`);
      show(revoked, (a) => `Revoked the token of admin ${a.id}.\n`);
    });
  admins
    .command('reenrol <adminId>')
    .description('a new one-time enrolment code for an admin (their token stops working)')
    .action(async (adminId: string) => {
      const answer = await api().request<WithCode>('POST', `admins/${segment(adminId)}/enrolment`);
      show(answer, (a) => codeText(a, a.status === 'pending' ? '' : `Re-enrolling admin ${a.id}; its old token no longer works.`));
    });
  admins
    .command('role <adminId> <role>')
    .description('give an admin another role (filed for approval when approvals are required, unless it is viewer)')
    .action(async (adminId: string, role: string) => {
      const answer = await api().request<AdminView | { status: 'pending'; id: string }>('PATCH', `admins/${segment(adminId)}`, { body: { role } });
      show(answer, (a) => (a.status === 'pending' ? `Filed for approval as change ${a.id}.\n` : `Admin ${a.id} is now ${(a as AdminView).role}.\n`));
    });
  admins
    .command('block <adminId>')
    .description('keep a single-sign-on admin (oidc:<sub>) out at once: its sessions end, and it cannot sign in')
    .action(async (adminId: string) => {
      const blocked = await api().request<AdminView>('POST', `admins/${segment(adminId)}/block`);
      show(blocked, (a) => `Blocked admin ${a.id}; its sessions have ended.\n`);
    });
  admins
    .command('unblock <adminId>')
    .description('let a blocked single-sign-on admin sign in again (filed for approval when approvals are required)')
    .action(async (adminId: string) => {
      const answer = await api().request<AdminView | { status: 'pending'; id: string }>('DELETE', `admins/${segment(adminId)}/block`);
      show(answer, (a) => (a.status === 'pending' ? `Filed for approval as change ${a.id}.\n` : `Admin ${a.id} may sign in again.\n`));
    });
  admins
    .command('delete <adminId>')
    .description('delete an admin; its token stops working at once')
    .action(async (adminId: string) => {
      await api().request<null>('DELETE', `admins/${segment(adminId)}`);
      show({ deleted: adminId }, () => `Deleted admin ${adminId}.\n`);
    });
}
