/**
 * The start banner of `src/main.ts` in sandbox mode, as a person trying the gateway reads it on the
 * console: it names the admin web UI, the API reference page and the API description, and each
 * printed URL answers (the page and the document keyless, the UI on the admin port).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { within } from '../support/within';

const ROOT = path.resolve(__dirname, '../..');
let child: ChildProcess | undefined;

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
});

describe('the start banner in sandbox mode', () => {
  it('prints the /docs and /openapi.json URLs beside the admin UI, and each answers', async () => {
    let stdout = '';
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: '',
        PORT: '0',
        ADMIN_PORT: '0',
        STATUS_PORT: '0',
        SANDBOX_PORT: '0',
        LOG_LEVEL: 'warn',
        GATEWAY__server__host: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await within(30_000, () => /API description: \S+\n/.test(stdout));

    const printed = (label: string): string => new RegExp(`^${label}: (\\S+)`, 'm').exec(stdout)?.[1] ?? '';
    const [adminUi, docs, openApi] = [printed('Admin web UI'), printed('API reference'), printed('API description')];
    expect(docs).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/docs$/);
    expect(openApi).toBe(docs.replace(/\/docs$/, '/openapi.json'));
    expect(adminUi).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(new URL(adminUi).port).not.toBe(new URL(docs).port);

    const page = await fetch(docs);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('swagger-ui-bundle.js');
    const document = await fetch(openApi);
    expect(document.status).toBe(200);
    expect(((await document.json()) as { openapi: string }).openapi).toMatch(/^3\.1/);
    const ui = await fetch(adminUi);
    expect(ui.status).toBe(200);
    await ui.arrayBuffer();
  }, 45_000);
});
