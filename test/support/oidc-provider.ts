/**
 * A real OpenID provider for the single-sign-on tests: oidc-provider (its own login and consent
 * pages, RS256 keys generated at start, PKCE required, client_secret_basic) in a child process
 * (test/support/oidc-provider/provider.mjs: oidc-provider and jose are ES modules, which jest
 * cannot load). The login name typed on its login page is the account id (sub), any password.
 *
 * The handle changes the provider while it runs, through its /__test__/ control routes: an
 * account's claims, a new signing key (the old kid gone from its JWKS), and a fault in the ID
 * token of its /token answers until cleared. `stop()` kills the child; it also dies when the test
 * process does (its stdin closes).
 *
 * Reads nothing from the environment; spawns `node` (this process's own executable).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

const PROGRAM = path.join(__dirname, 'oidc-provider', 'provider.mjs');

interface OidcTestClient {
  readonly client_id: string;
  readonly client_secret: string;
  readonly redirect_uris: readonly string[];
}

export interface OidcTestAccount {
  readonly name: string;
  readonly email: string;
  readonly groups: readonly string[];
}

/**
 * How the ID token of the next /token answers is broken: `tamper` (one character of its signature
 * changed), `expire` (exp 10 and iat 20 minutes ago, re-signed), `wrong_issuer` (another iss,
 * re-signed), `overage` (Entra ID's: no groups, `_claim_names`/`_claim_sources` instead, re-signed).
 */
export type TokenFault = 'tamper' | 'expire' | 'wrong_issuer' | 'overage';

export interface OidcProviderHandle {
  /** `http://127.0.0.1:<port>`, the provider's issuer and address. */
  readonly issuer: string;
  /** Sets (or replaces) an account's claims; read at its next sign-in or token. */
  setAccount(sub: string, claims: OidcTestAccount): Promise<void>;
  /** A new signing key: the JWKS holds only it from now on. Returns its kid. */
  rotateKeys(): Promise<string>;
  /** Breaks the ID token of every /token answer from now on (null: no more). */
  setTokenFault(fault: TokenFault | null): Promise<void>;
  stop(): Promise<void>;
}

interface OidcProviderOptions {
  readonly clients: readonly OidcTestClient[];
  readonly accounts: Readonly<Record<string, OidcTestAccount>>;
}

export async function startOidcProvider(options: OidcProviderOptions): Promise<OidcProviderHandle> {
  const child = spawn(process.execPath, [PROGRAM], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', OIDC_TEST_PROVIDER: JSON.stringify({ ...options, parentPid: process.pid }) },
  });
  const errors: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => errors.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  let onEarlyExit: (code: number | null) => void = () => undefined;
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error('did not start within 15 s')), 15_000);
    const lines = createInterface({ input: child.stdout });
    function fail(err: Error): void {
      clearTimeout(timer);
      lines.close();
      child.kill('SIGKILL');
      reject(new Error(`the test OpenID provider failed: ${err.message}\n${errors.join('')}`));
    }
    lines.once('line', (line) => {
      clearTimeout(timer);
      lines.close();
      resolve((JSON.parse(line) as { issuer: string }).issuer);
    });
    child.once('error', fail);
    onEarlyExit = (code) => fail(new Error(`exited with ${code}`));
    child.once('exit', onEarlyExit);
  });
  child.off('exit', onEarlyExit);
  child.stdout.resume();

  async function control(method: string, route: string, body?: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`${issuer}/__test__/${route}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`test OpenID provider ${method} ${route}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  }

  return {
    issuer,
    async setAccount(sub, claims) {
      await control('PUT', `account/${encodeURIComponent(sub)}`, claims);
    },
    async rotateKeys() {
      return (await control('POST', 'rotate-keys')).kid as string;
    },
    async setTokenFault(fault) {
      await control('PUT', 'token-fault', { fault });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
