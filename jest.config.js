/**
 * Jest: TypeScript through ts-jest in transpile-only mode (types are checked by `npm run lint`), in
 * three projects that `npm test` runs together and `npm run test:<project>` one at a time:
 *  - unit: tests under src/ that need no Redis, and the repository checks of test/docs/. No Redis
 *    is started for it, and its TEST_REDIS_URL names a host that cannot resolve, so a unit test that
 *    reaches for Redis fails instead of finding one.
 *  - component: tests under src/ that use a real Redis (the shared one global setup starts, or
 *    their own redis-server).
 *  - e2e: every test under test/ but test/docs/: whole gateways, child processes, browsers, Mono, Helm.
 * A test's project follows from where it is and what it reads (projectOf below), never from a list
 * of names, so a moved or new test lands in its project by itself; test/docs/test-projects.test.ts
 * holds the rule to that.
 */
const { readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');

const ROOT = __dirname;
const TEST_FILE = /\.test\.ts$/;
/** What a test, or a test/support module it imports, contains when it talks to a real Redis. */
const USES_REDIS = /TEST_REDIS_URL|from ['"]ioredis['"]|\bstartRedis(?:Server|Sentinel|Cluster)\b/;
const SUPPORT = path.join(ROOT, 'test', 'support') + path.sep;

function testFilesUnder(folder) {
  return readdirSync(path.join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && TEST_FILE.test(entry.name))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

/** The test/support modules a file imports by a relative path (the code under test is not followed). */
function supportImports(file) {
  const imports = [...readFileSync(file, 'utf8').matchAll(/(?:from|import|require\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)];
  return imports
    .map((match) => path.resolve(path.dirname(file), match[1]))
    .map((target) => (target.endsWith('.ts') ? target : `${target}.ts`))
    .filter((target) => target.startsWith(SUPPORT));
}

/** Whether the file, or any test/support module it reaches through its imports, uses Redis. */
function usesRedis(file, seen = new Set()) {
  if (seen.has(file)) return false;
  seen.add(file);
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return false; // a folder's index or a non-TypeScript import: not test support this rule reads
  }
  return USES_REDIS.test(text) || supportImports(file).some((imported) => usesRedis(imported, seen));
}

/** The project of a test file, given by its path relative to the repository. */
function projectOf(relativePath) {
  if (relativePath.startsWith('test/docs/')) return 'unit';
  if (relativePath.startsWith('test/')) return 'e2e';
  return usesRedis(path.join(ROOT, relativePath)) ? 'component' : 'unit';
}

const PROJECT_NAMES = ['unit', 'component', 'e2e'];
const testFiles = [...testFilesUnder('src'), ...testFilesUnder('test')];
/** A project's files as jest patterns; an empty testMatch would mean jest's default (every test), so never empty. */
const filesOf = (name) => {
  const files = testFiles.filter((file) => projectOf(file) === name).map((file) => `<rootDir>/${file}`);
  return files.length > 0 ? files : [`<rootDir>/no-${name}-tests-yet`];
};

const shared = {
  testEnvironment: 'node',
  rootDir: ROOT,
  roots: ['<rootDir>/src', '<rootDir>/test'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  testTimeout: 20000,
};
/** The projects that use Redis share one real redis-server, started once for the run. */
const withRedis = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

module.exports = {
  testTimeout: 20000,
  maxWorkers: 2,
  // The run's temporary folder, for every project (the Redis projects' setup adds the shared Redis).
  globalSetup: '<rootDir>/test/support/run-temp-setup.ts',
  globalTeardown: '<rootDir>/test/support/run-temp-teardown.ts',
  projects: [
    { ...shared, displayName: 'unit', testMatch: filesOf('unit'), setupFiles: ['<rootDir>/test/support/unit-without-redis.ts'] },
    { ...shared, ...withRedis, displayName: 'component', testMatch: filesOf('component') },
    { ...shared, ...withRedis, displayName: 'e2e', testMatch: filesOf('e2e') },
  ],
};

// The rule, for test/docs/test-projects.test.ts; not enumerable, as jest warns of every enumerable
// key that is not one of its options.
Object.defineProperty(module.exports, 'testProjects', { enumerable: false, value: { PROJECT_NAMES, projectOf } });
