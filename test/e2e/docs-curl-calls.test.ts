/**
 * The curl calls of the README's "Try it" and of the vendor guide's receipts, run as a reader
 * pastes them (bash and the real curl) against a gateway in sandbox mode, with only the ports
 * swapped for the test's: each call shown as working answers 2xx, and the one shown refused
 * answers the 401 problem it names. The vendor guide's "Day one" runs as one reader's shell
 * session, in order (a variable one line sets, the next uses), with the admin token the page asks
 * to paste set to the test gateway's: each line exits 0 (a call 2xx, a `grep` finding what it
 * looks for, a variable set), and each marked `# NNN code` answers that status and code.
 */
import { execFile } from 'node:child_process';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { readPage, REPOSITORY_ROOT as ROOT, section } from '../support/markdown';

let gateway: TestGateway;

/** Where the calls are: each section's shell blocks run as one reader's session. */
const SECTIONS = [
  { page: 'README.md', title: 'Try it', atLeast: 7 },
  { page: 'docs/vendor-guide.md', title: 'Receipts (money movement)', atLeast: 7 },
] as const;
type Section = (typeof SECTIONS)[number];

/** The shell lines of the section's code blocks, continuation lines joined. */
function shellLines({ page, title }: { page: string; title: string }): string[] {
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

/** The day-one path: every line of its shell blocks, run in order in one bash session. */
const DAY_ONE = { page: 'docs/vendor-guide.md', title: 'Day one: from a sandbox key to going live' };
const EXPECTED = /#\s*(\d{3})\b\s*(\S*)/;

interface SessionLine {
  readonly line: string;
  readonly exit: number;
  readonly output: string;
}

/** Runs the lines in one bash, each delimited in the output with its exit status. */
function runSession(lines: readonly string[]): Promise<SessionLine[]> {
  const script = ['set -o pipefail'];
  lines.forEach((line, i) => {
    let command = onTestPorts(line).replace(/^ADMIN_TOKEN=.*$/, `ADMIN_TOKEN=${TEST_ADMIN_TOKEN}`);
    // A refusal shown: the status is read from curl; every other call fails the line on a 4xx or 5xx.
    command = EXPECTED.test(line)
      ? command.replace(/^curl /, "curl -w '\\n@@status %{http_code}' ")
      : command.replace(/(^|\$\()curl /g, '$1curl --fail-with-body ');
    const assigned = /^([A-Z_]+)=\$\(/.exec(line)?.[1];
    if (assigned) command += ` && [ -n "$${assigned}" ]`;
    script.push(`printf '\\n@@line ${i}\\n'`, command, `printf '\\n@@exit %d\\n' $?`);
  });
  return new Promise((resolve) => {
    execFile('bash', ['-c', script.join('\n')], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 }, (_err, stdout) => {
      const parts = stdout.split(/\n@@line (\d+)\n/).slice(1);
      const results: SessionLine[] = [];
      for (let p = 0; p + 1 < parts.length; p += 2) {
        const body = parts[p + 1] as string;
        const exit = /\n@@exit (\d+)\n?$/.exec(body);
        results.push({ line: lines[Number(parts[p])] as string, exit: exit ? Number(exit[1]) : -1, output: body.replace(/\n@@exit \d+\n?$/, '') });
      }
      resolve(results);
    });
  });
}

describe(`the vendor guide's "${DAY_ONE.title}"`, () => {
  it('runs as one shell session: every line succeeds, every refusal shown is the one it names', async () => {
    const lines = shellLines(DAY_ONE);
    expect(lines.filter((line) => line.startsWith('curl ') || /\$\(curl /.test(line)).length).toBeGreaterThanOrEqual(15);
    const results = await runSession(lines);
    expect(results.map((r) => r.line)).toEqual(lines);
    for (const { line, exit, output } of results) {
      const expected = EXPECTED.exec(line);
      if (expected) {
        const [, status, code] = expected;
        expect({ line, status: /@@status (\d{3})/.exec(output)?.[1] }).toEqual({ line, status });
        if (code) expect({ line, mentions: output.includes(code.replace(/^"|"$/g, '')) || output.includes(code) }).toEqual({ line, mentions: true });
      } else {
        expect({ line, exit, output: exit === 0 ? '' : output }).toEqual({ line, exit: 0, output: '' });
        if (!/^[A-Z_]+=/.test(line)) expect({ line, printed: output.trim().length > 0 }).toEqual({ line, printed: true });
      }
    }
  }, 90_000);
});
