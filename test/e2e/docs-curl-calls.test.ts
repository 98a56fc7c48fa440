/**
 * The curl calls of the README's "Try it" and of the vendor guide's receipts, run as a reader
 * pastes them (bash and the real curl) against a gateway in sandbox mode, with only the ports
 * swapped for the test's: each call shown as working answers 2xx, and the one shown refused
 * answers the 401 problem it names.
 */
import { execFile } from 'node:child_process';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { readPage, REPOSITORY_ROOT as ROOT, section } from '../support/markdown';

let gateway: TestGateway;

/** Where the calls are: each section's shell blocks run as one reader's session. */
const SECTIONS = [
  { page: 'README.md', title: 'Try it', atLeast: 7 },
  { page: 'docs/vendor-guide.md', title: 'Receipts (money movement)', atLeast: 7 },
] as const;
type Section = (typeof SECTIONS)[number];

/** The shell lines of the section's code blocks, continuation lines joined. */
function shellLines({ page, title }: Section): string[] {
  const blocks = [...section(readPage(page), title).matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1] as string);
  return blocks.flatMap((block) => block.replace(/\\\n\s*/g, '').split('\n')).filter((line) => line.trim() !== '');
}

const curlLines = (where: Section): string[] => shellLines(where).filter((line) => line.startsWith('curl '));
const tryIt = SECTIONS[0];

/** The README's fixed ports, as the test gateway's. */
function onTestPorts(line: string): string {
  return line
    .replaceAll('localhost:8080', `127.0.0.1:${gateway.vendorPort}`)
    .replaceAll('localhost:8081', `127.0.0.1:${gateway.adminPort}`)
    .replaceAll('localhost:8082', `127.0.0.1:${gateway.statusPort}`);
}

function sh(where: Section, command: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const keyLine = shellLines(where).find((line) => line.startsWith('KEY=')) ?? '';
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

describe.each(SECTIONS)('the curl calls of $page, "$title"', (where) => {
  it('are found, with the sandbox key they use', () => {
    expect(curlLines(where).length).toBeGreaterThanOrEqual(where.atLeast);
    expect(shellLines(where).some((line) => line.startsWith('KEY=cbk_'))).toBe(true);
  });

  it('answer 2xx where the page shows a working call', async () => {
    const working = curlLines(where).filter((line) => !/#\s*4\d\d\b/.test(line));
    expect(working.length).toBeGreaterThanOrEqual(where.atLeast - 1);
    for (const line of working) {
      // The call alone (what follows `|` only trims the output); curl exits non-zero on a 4xx or 5xx.
      const call = onTestPorts(line.split(' | ')[0] as string).replace(/^curl /, 'curl --fail-with-body ');
      const result = await sh(where, call);
      expect({ line, status: result.status, body: result.status === 0 ? '' : result.stdout }).toEqual({ line, status: 0, body: '' });
      expect(result.stdout.length).toBeGreaterThan(0);
    }
  }, 60_000);
});

describe("the README's Try it", () => {
  it('answers the refusal it names where it shows one', async () => {
    const refused = curlLines(tryIt).filter((line) => /#\s*401\b/.test(line));
    expect(refused.length).toBe(1);
    const result = await sh(tryIt, onTestPorts(refused[0] as string));
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^HTTP\/1\.1 401/);
    expect(result.stdout).toMatch(/content-type: application\/problem\+json/i);
  }, 30_000);
});
