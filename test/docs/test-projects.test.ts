/**
 * The jest projects of jest.config.js (unit, component, e2e): every test is in exactly one, by a
 * rule on where it is and what it imports rather than a list of names; a unit test has no Redis;
 * `npm test` runs all three and `npm run test:<project>` one.
 */
import { lookup } from 'node:dns/promises';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { testTempDir } from '../support/temp-dir';

const ROOT = path.resolve(__dirname, '../..');

interface JestProject {
  displayName: string;
  testMatch: string[];
}
interface TestProjectsRule {
  PROJECT_NAMES: string[];
  projectOf(relativePath: string): string;
}
const config = createRequire(__filename)(path.join(ROOT, 'jest.config.js')) as { projects: JestProject[]; testProjects: TestProjectsRule };
const { projectOf, PROJECT_NAMES } = config.testProjects;
const SCRIPTS = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** Every test file of the repository, found here on its own rather than through the config. */
function allTestFiles(): string[] {
  return ['src', 'test'].flatMap((folder) =>
    (readdirSync(path.join(ROOT, folder), { recursive: true }) as string[])
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => `${folder}/${file.split(path.sep).join('/')}`),
  );
}

const filesOf = (project: JestProject): string[] =>
  project.testMatch.filter((pattern) => pattern.endsWith('.test.ts')).map((pattern) => pattern.replace('<rootDir>/', ''));
const projectNamed = (name: string): JestProject => config.projects.find((project) => project.displayName === name) as JestProject;

describe('the jest projects', () => {
  it('are unit, component and e2e', () => {
    expect(config.projects.map((project) => project.displayName)).toEqual(['unit', 'component', 'e2e']);
    expect(PROJECT_NAMES).toEqual(['unit', 'component', 'e2e']);
  });

  it('hold every test file of src/ and test/ exactly once, in the project its rule names', () => {
    const placed = config.projects.flatMap((project) => filesOf(project).map((file) => `${file} ${project.displayName}`));
    const expected = allTestFiles().map((file) => `${file} ${projectOf(file)}`);
    expect(placed.sort()).toEqual(expected.sort());
    expect(new Set(placed.map((entry) => entry.split(' ')[0])).size).toBe(placed.length);
  });

  it('never leave a project with no pattern, which jest would take as every test', () => {
    for (const project of config.projects) expect(project.testMatch.length).toBeGreaterThan(0);
  });

  it('put test/e2e/ and test/deploy/ in e2e, test/docs/ in unit, wherever a file is moved within them', () => {
    expect(projectOf('test/e2e/any-new.test.ts')).toBe('e2e');
    expect(projectOf('test/deploy/any-new.test.ts')).toBe('e2e');
    expect(projectOf('test/docs/any-new.test.ts')).toBe('unit');
  });

  it('leave no unit test importing a Redis client or a Redis server of the test support', () => {
    const redisImport = /from ['"](?:ioredis|[./]+test\/support\/redis-[\w-]+)['"]/;
    const offenders = filesOf(projectNamed('unit')).filter((file) => redisImport.test(readFileSync(path.join(ROOT, file), 'utf8')));
    expect(offenders).toEqual([]);
    expect(filesOf(projectNamed('component')).length).toBeGreaterThan(0);
  });

  it('make a source test that reaches Redis only through a test/support module a component test', () => {
    const dir = testTempDir('test-projects-');
    const support = path.relative(dir, path.join(ROOT, 'test/support'));
    const write = (name: string, text: string): string => {
      writeFileSync(path.join(dir, name), text);
      return path.relative(ROOT, path.join(dir, name));
    };
    // redis-clients.ts imports ioredis; listen.ts opens nothing but an HTTP server.
    const throughSupport = write('through-support.test.ts', `import { TestRedisClients } from '${support}/redis-clients';\n`);
    const withoutRedis = write('without-redis.test.ts', `import { listen } from '${support}/listen';\n`);
    expect(projectOf(throughSupport)).toBe('component');
    expect(projectOf(withoutRedis)).toBe('unit');
  });
});

describe('a unit test', () => {
  it('is given a Redis URL whose host never resolves, so reaching for Redis fails', async () => {
    const url = new URL(process.env.TEST_REDIS_URL as string);
    expect(url.hostname).toMatch(/\.invalid$/);
    await expect(lookup(url.hostname)).rejects.toMatchObject({ code: expect.stringMatching(/^(ENOTFOUND|EAI_AGAIN)$/) });
  });
});

describe('npm scripts', () => {
  it('run every project with `npm test` and one with `npm run test:<project>`', () => {
    expect(SCRIPTS.test).toBe('jest');
    for (const name of PROJECT_NAMES) expect(SCRIPTS[`test:${name}`]).toBe(`jest --selectProjects ${name}`);
  });
});
