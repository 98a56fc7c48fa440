#!/usr/bin/env node
/**
 * gatewayctl: the command line for the admin API (README "gatewayctl"). Applies and
 * exports the access document, manages vendors, keys, vendor portal users, licences, permissions
 * and rate limits, and reads and exports the audit log.
 *
 * Reads GATEWAY_ADMIN_URL (default http://127.0.0.1:8081) and ADMIN_TOKEN from the
 * environment it is given (the token only from there, never a flag, so it stays out of shell
 * history and process lists), and the file given to `apply`. Sets nothing locally; prints
 * tables (or JSON with --json) to stdout, problems to stderr, and returns the exit code:
 * 0 on success, 1 on any failure.
 *
 * This file is the entry (the package's bin) and builds the program; the admin API client and
 * failure handling are in admin-client.ts, tables and the diff in output.ts, and each command
 * group in commands/.
 */
import { Command } from 'commander';
import { exitCodeFor, type GatewayctlIo } from './admin-client';
import { endQuietlyWhenOutputCloses } from './output';
import { registerAccessCommands } from './commands/access';
import { registerAdminCommands } from './commands/admins';
import { registerAuditCommands } from './commands/audit';
import { commandContext } from './commands/context';
import { registerLicenceCommands, registerPermissionCommands } from './commands/grants';
import { registerKeyCommands } from './commands/keys';
import { registerPortalUserCommands } from './commands/portal-users';
import { registerRateLimitCommands, registerVendorCommands } from './commands/vendors';

export type { GatewayctlIo } from './admin-client';

function buildProgram(io: GatewayctlIo): Command {
  const program = new Command('gatewayctl')
    .description('Manage the Core Banking Gateway through its admin API (GATEWAY_ADMIN_URL, ADMIN_TOKEN).')
    .option('--json', 'print JSON instead of tables, for scripts')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) });
  const context = commandContext(program, io);
  // Registration order is the order `gatewayctl --help` lists the commands in.
  registerAccessCommands(program, context);
  registerVendorCommands(program, context);
  registerKeyCommands(program, context);
  registerPortalUserCommands(program, context);
  registerAdminCommands(program, context);
  registerLicenceCommands(program, context);
  registerPermissionCommands(program, context);
  registerRateLimitCommands(program, context);
  registerAuditCommands(program, context);
  return program;
}

/** Runs one gatewayctl command line (the arguments after the program name); resolves to the exit code. */
export async function runGatewayctl(argv: readonly string[], io: GatewayctlIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    return exitCodeFor(err, io);
  }
}

if (require.main === module) {
  // Once for every command: a reader that closed the pipe early ends the CLI quietly (output.ts).
  endQuietlyWhenOutputCloses(process.stdout, process.stderr, (code) => process.exit(code));
  runGatewayctl(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr }).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`error: ${(err as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
