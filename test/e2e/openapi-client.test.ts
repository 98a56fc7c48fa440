/**
 * A client generated from the served OpenAPI document works without casts: openapi-typescript
 * writes the types from /openapi.json, the TypeScript compiler (strict) checks a vendor's
 * program against them (test/openapi/typed-client/program.mts: list accounts, page customers,
 * post a JSON deposit, read receiptNo), and the program then runs against the sandbox gateway
 * through openapi-fetch. (The project's own type-check leaves the program out: its types exist
 * only once generated.)
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const PROGRAM = path.join(ROOT, 'test/openapi/typed-client/program.mts');
const bin = (name: string): string => path.join(ROOT, 'node_modules/.bin', name);

describe('a client generated from /openapi.json', () => {
  let gateway: TestGateway;
  let dir: string;
  beforeAll(async () => {
    gateway = await startTestGateway();
    // Inside the checkout, so the program finds openapi-fetch in node_modules.
    dir = mkdtempSync(path.join(ROOT, 'test/openapi/typed-client/.generated-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await gateway.stop();
  });

  it('type-checks a program that lists accounts, pages customers and posts a deposit, with no casts, and the program runs', async () => {
    // No `as` cast and no non-null assertion in the program's code (its comments aside).
    const code = readFileSync(PROGRAM, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    expect(code).not.toMatch(/\bas\s+[A-Za-z{[]|[\w)\]]!\s*[.;,)[]/);
    writeFileSync(path.join(dir, 'openapi.json'), await (await fetch(`${gateway.url}/openapi.json`)).text());
    await run(process.execPath, [bin('openapi-typescript'), path.join(dir, 'openapi.json'), '--output', path.join(dir, 'schema.d.ts')]);
    copyFileSync(PROGRAM, path.join(dir, 'program.mts'));
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['program.mts'],
      }),
    );
    const typecheck = await run(process.execPath, [bin('tsc'), '-p', path.join(dir, 'tsconfig.json')]).catch((err: { stdout: string }) => err);
    expect(typecheck.stdout).toBe('');

    const { stdout } = await run(process.execPath, [bin('tsx'), path.join(dir, 'program.mts'), gateway.url, SANDBOX_KEYS.demo, 'TYPED-CLIENT-1']);
    const read = JSON.parse(stdout) as {
      accounts: number;
      firstBalance: number;
      names: string[];
      nextUrl: string | null;
      receiptNo: number;
      errorCode: string;
    };
    expect(read.accounts).toBeGreaterThan(100);
    expect(read.firstBalance).toBeGreaterThan(0);
    expect(read.names).toHaveLength(5);
    expect(read.nextUrl).toContain('page=3');
    expect(read.receiptNo).toBeGreaterThan(0);
    expect(read.errorCode).toBe('not_found');
  }, 60_000);
});
