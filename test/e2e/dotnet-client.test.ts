/**
 * A real .NET client against the gateway: the C# sources in test/dotnet/ (the spec's receipt
 * DTOs as a vendor declares them) compiled by Debian's Mono and run against a sandbox gateway.
 * Every receipt operation goes out as DataContractSerializer XML and as Newtonsoft.Json JSON
 * (PascalCase and camelCase), and every answer (201, 422, 400) is read back into the DTOs with
 * its amounts compared to the last digit. Mono missing fails with the install command: this
 * test never passes by skipping.
 */
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';
import { testTempDir } from '../support/temp-dir';

const run = promisify(execFile);
const SOURCES = path.resolve(__dirname, '../dotnet');
const NEWTONSOFT = '/usr/lib/cli/Newtonsoft.Json-5.0/Newtonsoft.Json.dll';
const INSTALL = 'apt-get install -y mono-mcs mono-runtime libmono-system-runtime-serialization4.0-cil libnewtonsoft-json5.0-cil';
/** Receipt round trips RoundTrips.cs makes. */
const ROUND_TRIPS = 18;

interface Account {
  readonly id: number;
  readonly accountNumber: string;
  readonly productId: number;
  readonly productTypeId: number;
  readonly status: number;
}

interface TransactionLine {
  readonly ReceiptNumber: number;
  readonly TransactionsTypeID: number;
  readonly Amount: number;
}

const LOAN_ADVANCE = 11;
const LOAN_INTEREST = 13;

/** Compiles the client with Mono's C# compiler; fails with the install command when Mono is missing. */
async function compileClient(): Promise<string> {
  const missing = ['mcs', 'mono'].filter((tool) => spawnSync('which', [tool]).status !== 0);
  if (missing.length > 0 || !existsSync(NEWTONSOFT)) {
    throw new Error(`Mono or Newtonsoft.Json is missing (${[...missing, existsSync(NEWTONSOFT) ? '' : NEWTONSOFT].filter(Boolean).join(', ')}): ${INSTALL}`);
  }
  const out = testTempDir('dotnet');
  copyFileSync(NEWTONSOFT, path.join(out, 'Newtonsoft.Json.dll'));
  const sources = readdirSync(SOURCES)
    .filter((name) => name.endsWith('.cs'))
    .map((name) => path.join(SOURCES, name));
  await run('mcs', [
    '-langversion:7',
    '-warnaserror',
    `-out:${path.join(out, 'RoundTrips.exe')}`,
    '-r:System.Runtime.Serialization.dll',
    '-r:System.Xml.dll',
    `-r:${path.join(out, 'Newtonsoft.Json.dll')}`,
    ...sources,
  ]);
  return path.join(out, 'RoundTrips.exe');
}

async function getJson<T>(gateway: TestGateway, target: string): Promise<T> {
  const res = await fetch(`${gateway.url}${target}`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } });
  if (res.status !== 200) throw new Error(`GET ${target}: ${res.status}`);
  return (await res.json()) as T;
}

/** Loans whose only lines are their issue and interest since: their issue can be reversed. */
async function reversibleLoans(
  gateway: TestGateway,
  accounts: readonly Account[],
  wanted: number,
): Promise<Array<{ id: number; issue: number; amount: string }>> {
  const found = [];
  for (const loan of accounts.filter((a) => a.productTypeId === 2)) {
    const lines = (await getJson<TransactionLine[]>(gateway, `/accounts/${loan.id}/transactions`)).sort((a, b) => a.ReceiptNumber - b.ReceiptNumber);
    const [issue, ...since] = lines;
    if (issue?.TransactionsTypeID === LOAN_ADVANCE && since.every((line) => line.TransactionsTypeID === LOAN_INTEREST)) {
      found.push({ id: loan.id, issue: issue.ReceiptNumber, amount: issue.Amount.toFixed(2) });
      if (found.length === wanted) return found;
    }
  }
  throw new Error(`the sandbox has fewer than ${wanted} reversible loans`);
}

describe('a .NET client (Mono, DataContractSerializer and Newtonsoft.Json)', () => {
  let gateway: TestGateway;
  let client: string;

  beforeAll(async () => {
    [gateway, client] = await Promise.all([startTestGateway(), compileClient()]);
  }, 60_000);
  afterAll(() => gateway?.stop());

  it('posts every receipt operation in XML and JSON and reads every answer back into the DTOs, amounts to the last digit', async () => {
    const accounts = await getJson<Account[]>(gateway, '/accounts');
    const share = accounts.find((a) => a.productId === 1 && a.productTypeId === 1 && a.status === 0) as Account;
    const loans = await reversibleLoans(gateway, accounts, 2);
    const args = [
      client,
      gateway.url,
      SANDBOX_KEYS.demo,
      String(share.id),
      share.accountNumber,
      ...loans.flatMap((l) => [String(l.id), String(l.issue), l.amount]),
    ];
    const { stdout } = await run('mono', args, { timeout: 60_000 }).catch((err: { stdout?: string; message: string }) => {
      throw new Error(`the .NET client failed:\n${err.stdout ?? err.message}`);
    });
    expect(stdout.split('\n').filter((line) => line.startsWith('FAIL'))).toEqual([]);
    expect(stdout.split('\n').filter((line) => line.startsWith('ok '))).toHaveLength(ROUND_TRIPS);
  }, 90_000);
});
