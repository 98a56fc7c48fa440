/**
 * gatewayctl `keys`: issue, list, bind and revoke vendor API keys.
 *
 * Reads and sets keys through the admin API (/v1/vendors/{id}/keys, /v1/keys/{id}); prints
 * to stdout, including a new key's secret, which the API returns only at issue.
 */
import type { Command } from 'commander';
import type { KeyView } from '../../admin/operations/access-service';
import { table } from '../output';
import { type CommandContext, segment } from './context';

export function registerKeyCommands(program: Command, { api, show, showWrite }: CommandContext): void {
  const keys = program.command('keys').description('issue, list and revoke vendor API keys');
  keys
    .command('issue <vendorId>')
    .description('issue a key; its secret is printed this once')
    .requiredOption('--user <userId>', 'the banking-application user the key acts as')
    .option('--expires-at <iso>', 'expiry, ISO 8601 with offset')
    .option('--id <keyId>', 'the key id (generated when absent)')
    .option('--certificate-thumbprint <x5t#S256...>', 'bind the key to these client certificates (one or two)')
    .action(async (vendorId: string, options: { user: string; expiresAt?: string; id?: string; certificateThumbprint?: string[] }) => {
      const issued = await api().request<KeyView & { secret: string }>('POST', `vendors/${segment(vendorId)}/keys`, {
        body: { id: options.id, userId: options.user, expiresAt: options.expiresAt, certificateThumbprints: options.certificateThumbprint },
      });
      showWrite(
        issued,
        (k) => `Issued key ${k.id} (${k.prefix}) for vendor ${vendorId}, user ${k.userId}.\n` + `Secret, shown this once; store it now:\n${k.secret}\n`,
      );
    });
  keys
    .command('list <vendorId>')
    .description("list a vendor's keys")
    .action(async (vendorId: string) => {
      const list = await api().request<KeyView[]>('GET', `vendors/${segment(vendorId)}/keys`);
      show(list, (l) =>
        table(
          ['ID', 'PREFIX', 'USER', 'STATUS', 'EXPIRES', 'CREATED', 'LAST USED', 'CERTIFICATES'],
          l.map((k) => [
            k.id,
            k.prefix,
            k.userId,
            k.status,
            k.expiresAt,
            k.createdAt,
            k.lastUsedAt,
            k.certificateThumbprints?.length ? String(k.certificateThumbprints.length) : undefined,
          ]),
        ),
      );
    });
  keys
    .command('bind <keyId> [thumbprints...]')
    .description('bind a key to one or two client certificates (x5t#S256), or unbind it with none; the secret stays')
    .action(async (keyId: string, thumbprints: string[]) => {
      const key = await api().request<KeyView>('PATCH', `keys/${segment(keyId)}`, { body: { certificateThumbprints: thumbprints } });
      showWrite(key, (k) =>
        k.certificateThumbprints ? `Bound key ${k.id} to ${k.certificateThumbprints.join(', ')}.\n` : `Key ${k.id} is bound to no certificate.\n`,
      );
    });
  keys
    .command('revoke <keyId>')
    .description('revoke a key (it stays listed, revoked)')
    .action(async (keyId: string) => {
      await api().request<null>('DELETE', `keys/${segment(keyId)}`);
      show({ revoked: keyId }, () => `Revoked key ${keyId}.\n`);
    });
}
