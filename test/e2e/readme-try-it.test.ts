/**
 * The README's "Try it" calls, run as a reader pastes them (bash and the real curl) against a
 * gateway in sandbox mode, with only the ports swapped for the test's: each call the README
 * shows as working answers 2xx, and the one it shows refused answers the 401 problem it names.
 */
import { execFile } from 'node:child_process';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { readPage, REPOSITORY_ROOT as ROOT, section } from '../support/markdown';

let gateway: TestGateway;

/** The shell lines of the section's code blocks, continuation lines joined. */
function tryItLines(): string[] {
  const blocks = [...section(readPage('README.md'), 'Try it').matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1] as string);
  return blocks.flatMap((block) => block.replace(/\\\n\s*/g, '').split('\n')).filter((line) => line.trim() !== '');
}

const curlLines = (): string[] => tryItLines().filter((line) => line.startsWith('curl '));

/** The README's fixed ports, as the test gateway's. */
function onTestPorts(line: string): string {
  return line
    .replaceAll('localhost:8080', `127.0.0.1:${gateway.vendorPort}`)
    .replaceAll('localhost:8081', `127.0.0.1:${gateway.adminPort}`)
    .replaceAll('localhost:8082', `127.0.0.1:${gateway.statusPort}`);
}

function sh(command: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const keyLine = tryItLines().find((line) => line.startsWith('KEY=')) ?? '';
  return new Promise((resolve) => {
    execFile('bash', ['-c', `${keyLine}\n${command}`], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(() => gateway.stop());

describe("the README's Try it calls", () => {
  it('are found, with the sandbox key they use', () => {
    expect(curlLines().length).toBeGreaterThanOrEqual(7);
    expect(tryItLines().some((line) => line.startsWith('KEY=cbk_'))).toBe(true);
  });

  it('answer 2xx where the README shows a working call', async () => {
    const working = curlLines().filter((line) => !/#\s*4\d\d\b/.test(line));
    expect(working.length).toBeGreaterThanOrEqual(6);
    for (const line of working) {
      // The call alone (what follows `|` only trims the output); curl exits non-zero on a 4xx or 5xx.
      const call = onTestPorts(line.split(' | ')[0] as string).replace(/^curl /, 'curl --fail-with-body ');
      const result = await sh(call);
      expect({ line, status: result.status, body: result.status === 0 ? '' : result.stdout }).toEqual({ line, status: 0, body: '' });
      expect(result.stdout.length).toBeGreaterThan(0);
    }
  }, 60_000);

  it('answer the refusal the README names where it shows one', async () => {
    const refused = curlLines().filter((line) => /#\s*401\b/.test(line));
    expect(refused.length).toBe(1);
    const result = await sh(onTestPorts(refused[0] as string));
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^HTTP\/1\.1 401/);
    expect(result.stdout).toMatch(/content-type: application\/problem\+json/i);
  }, 30_000);
});
