/**
 * gatewayctl `portal-users`: list, invite and remove a vendor's portal users (its developers, who
 * sign in to the vendor portal at `/portal/` on the vendor port), and issue one a new token.
 *
 * Reads and sets them through the admin API (/v1/vendors/{id}/portal-users); prints to stdout,
 * including a `cbp_` token, which the API returns only when it is made. With approvals required,
 * an invitation and a new token are filed for approval (the approver is answered the token).
 */
import type { Command } from 'commander';
import type { PortalUser } from '../../access/model';
import { table } from '../output';
import { type CommandContext, segment } from './context';

/** A portal user as the admin API shows one: never the token's hash. */
type PortalUserView = Omit<PortalUser, 'tokenHash'>;
type WithToken = PortalUserView & { token: string };

const PORTAL_WHERE = "They sign in with it at the vendor port's /portal/ (where the vendor calls the API, with /portal/ after it).\n";

const tokenLines = (u: WithToken): string =>
  `Portal token, shown this once and never again; store it now and hand it over privately (it works until ${u.tokenExpiresAt}):\n${u.token}\n${PORTAL_WHERE}`;

export function registerPortalUserCommands(program: Command, { api, show, showWrite }: CommandContext): void {
  const portalUsers = program.command('portal-users').description("list, invite and remove a vendor's portal users, and issue them new tokens");
  const usersPath = (vendorId: string): string => `vendors/${segment(vendorId)}/portal-users`;
  portalUsers
    .command('list <vendorId>')
    .description("list a vendor's portal users (never their tokens)")
    .action(async (vendorId: string) => {
      const list = await api().request<PortalUserView[]>('GET', usersPath(vendorId));
      show(list, (l) =>
        table(
          ['ID', 'NAME', 'EMAIL', 'TOKEN PREFIX', 'TOKEN EXPIRES', 'CREATED', 'CREATED BY'],
          l.map((u) => [u.id, u.name, u.email, u.tokenPrefix, u.tokenExpiresAt, u.createdAt, u.createdBy]),
        ),
      );
    });
  portalUsers
    .command('invite <vendorId>')
    .description('invite a portal user; their portal token is printed this once')
    .requiredOption('--email <email>', "the developer's email address")
    .requiredOption('--name <name>', "the developer's name")
    .action(async (vendorId: string, options: { email: string; name: string }) => {
      const invited = await api().request<WithToken>('POST', usersPath(vendorId), { body: { email: options.email, name: options.name } });
      showWrite(invited, (u) => `Invited portal user ${u.id} (${u.name} <${u.email}>) to vendor ${vendorId}.\n${tokenLines(u)}`);
    });
  portalUsers
    .command('new-token <vendorId> <portalUserId>')
    .description('issue a portal user a new token, printed this once; the old one no longer signs in')
    .action(async (vendorId: string, portalUserId: string) => {
      const reissued = await api().request<WithToken>('POST', `${usersPath(vendorId)}/${segment(portalUserId)}/token`);
      showWrite(reissued, (u) => `Issued portal user ${u.id} (${u.name} <${u.email}>) a new token; the old one no longer signs in.\n${tokenLines(u)}`);
    });
  portalUsers
    .command('remove <vendorId> <portalUserId>')
    .description('remove a portal user: they can no longer use the portal, at once')
    .action(async (vendorId: string, portalUserId: string) => {
      await api().request<null>('DELETE', `${usersPath(vendorId)}/${segment(portalUserId)}`);
      show({ removed: portalUserId }, () => `Removed portal user ${portalUserId} of vendor ${vendorId}.\n`);
    });
}
