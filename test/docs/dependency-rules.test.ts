/**
 * The layers' import rules, so that `.ci/run` fails when an import runs from a lower layer back
 * up (madge checks cycles; this checks direction): the request path (`policies/`, `pipeline/`,
 * `request/`) and the data plane (`access/`) never import the control plane (`admin/`); the
 * data plane never imports the CLI; a policy never imports another policy (shared pieces live in
 * `request/`, `core-client/` and the like). Test files are exempt: a store's test may drive it
 * through the admin writer. Reads the TypeScript files git tracks under src/, and their imports
 * as the compiler sees them (multi-line and type-only imports included).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');

/** One import: the importing file and the imported file, both relative to the repository. */
interface Edge {
  readonly from: string;
  readonly to: string;
}

interface Rule {
  readonly name: string;
  /** The import breaks the rule. */
  readonly forbids: (edge: Edge) => boolean;
}

const under = (folder: string) => (file: string) => file.startsWith(`src/${folder}/`);
const policyOf = (file: string): string | undefined => /^src\/policies\/([^/]+)\//.exec(file)?.[1];

const RULES: readonly Rule[] = [
  {
    name: 'policies/, pipeline/ and request/ never import admin/',
    forbids: ({ from, to }) => ['policies', 'pipeline', 'request'].some((f) => under(f)(from)) && under('admin')(to),
  },
  { name: 'access/ never imports admin/', forbids: ({ from, to }) => under('access')(from) && under('admin')(to) },
  { name: 'access/ never imports cli/', forbids: ({ from, to }) => under('access')(from) && under('cli')(to) },
  {
    name: 'a policy never imports another policy',
    forbids: ({ from, to }) => policyOf(from) !== undefined && policyOf(to) !== undefined && policyOf(from) !== policyOf(to),
  },
];

/** Every import of every non-test TypeScript file under src/ that resolves to a file of the repository. */
function importEdges(): Edge[] {
  const files = execFileSync('git', ['ls-files', '-z', 'src'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && existsSync(path.join(ROOT, file)));
  return files.flatMap((from) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(path.join(ROOT, from), 'utf8'), true, true);
    return importedFiles
      .map(({ fileName }) => fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => {
        const target = path.relative(ROOT, path.resolve(ROOT, path.dirname(from), spec));
        const to = [`${target}.ts`, target, `${target}/index.ts`].find((candidate) => existsSync(path.join(ROOT, candidate))) ?? target;
        return { from, to };
      });
  });
}

const breaking = (edges: readonly Edge[]): string[] =>
  RULES.flatMap((rule) => edges.filter((edge) => rule.forbids(edge)).map((edge) => `${rule.name}: ${edge.from} imports ${edge.to}`));

describe('dependency rules', () => {
  const edges = importEdges();

  it('reads the imports of the source tree', () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(edges).toContainEqual({ from: 'src/admin/admin-app.ts', to: 'src/admin/operations/proposals.ts' });
  });

  it('keeps every import going downwards', () => {
    expect(breaking(edges)).toEqual([]);
  });

  it.each([
    ['src/policies/authorize/authorize.ts', 'src/admin/operations/roles.ts'],
    ['src/pipeline/chain.ts', 'src/admin/admin-app.ts'],
    ['src/request/context.ts', 'src/admin/operations/admin-directory.ts'],
    ['src/access/access-store.ts', 'src/admin/bootstrap-audit.ts'],
    ['src/access/cache.ts', 'src/cli/output.ts'],
    ['src/policies/idempotency/idempotency.ts', 'src/policies/two-factor/two-factor.ts'],
  ])('refuses %s importing %s', (from, to) => {
    expect(breaking([{ from, to }])).toHaveLength(1);
  });

  it('lets the admin app import downwards, and a policy import its own files', () => {
    expect(
      breaking([
        { from: 'src/admin/admin-app.ts', to: 'src/access/audit-log.ts' },
        { from: 'src/admin/operations/access-writer.ts', to: 'src/access/access-store.ts' },
        { from: 'src/policies/rate-limit/rate-limit.ts', to: 'src/policies/rate-limit/rate-limit.schema.ts' },
      ]),
    ).toEqual([]);
  });
});
