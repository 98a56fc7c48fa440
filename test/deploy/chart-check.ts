/**
 * `npm run chart:check`: the Helm chart rendered by the real Helm (helm-binary.ts says where it
 * comes from) and every rendered object validated against the Kubernetes schemas. For each case:
 * the chart with its defaults must be refused (no Redis, no Secrets); each values file in
 * `helm/<chart>/ci/` and the `helm install` example of docs/deployment.md must pass `helm lint --strict` and
 * `helm template`; every object must validate with `kubernetes-models` (ServiceMonitor and
 * PrometheusRule with `@kubernetes-models/prometheus-operator`), an unknown kind fails; a rendered
 * PrometheusRule must carry exactly the rules of ops/prometheus/alerts.yaml.
 *
 * Reads the chart, docs/deployment.md and ops/prometheus/alerts.yaml; writes only Helm's cached binary.
 * Exits 1 naming each failure; prints the number of objects rendered and validated. The models'
 * schemas allow unknown fields (as the API server's pruning does), so a misspelt field is not caught.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { helmRun } from './helm-binary';

const ROOT = path.resolve(__dirname, '../..');
const RELEASE = 'gateway';
const NAMESPACE = 'payments';
const DEPLOYMENT_GUIDE = 'docs/deployment.md';

interface Manifest {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
  spec?: unknown;
}
type ModelClass = new (data: unknown) => { validate(): void };
interface Case {
  readonly name: string;
  readonly chart: string;
  readonly args: readonly string[];
}

/** `apiVersion/kind` → model class, from every group and version the model packages export. */
async function modelRegistry(): Promise<Map<string, ModelClass>> {
  const registry = new Map<string, ModelClass>();
  const add = (namespace: Record<string, unknown>): void => {
    for (const value of Object.values(namespace)) {
      if (typeof value === 'function') {
        const model = value as unknown as { apiVersion?: unknown; kind?: unknown };
        if (typeof model.apiVersion === 'string' && typeof model.kind === 'string') registry.set(`${model.apiVersion}/${model.kind}`, value as ModelClass);
      } else if (value !== null && typeof value === 'object') {
        add(value as Record<string, unknown>);
      }
    }
  };
  // ESM-only packages: loaded with import(), which tsx keeps as a real dynamic import.
  add((await import('kubernetes-models')) as Record<string, unknown>);
  add((await import('@kubernetes-models/prometheus-operator')) as Record<string, unknown>);
  return registry;
}

/** The `--set` flags of the deployment guide's `helm install` example, so the check follows the guide. */
export function guideExampleArgs(guide: string): string[] {
  const block = /^helm install \S+ (helm\/\S+)[^\n]*\\\n((?:\s+--set [^\n]+\n)+)/m.exec(guide);
  if (!block) throw new Error(`${DEPLOYMENT_GUIDE} has no \`helm install … --set …\` example`);
  return [...(block[2] as string).matchAll(/--set (\S+)/g)].map((m) => `--set=${m[1] as string}`);
}

/** The models throw one error listing every schema violation (`data/spec/replicas must be integer`). */
function describeErrors(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 800);
}

async function main(): Promise<void> {
  const registry = await modelRegistry();
  const alerts = parse(readFileSync(path.join(ROOT, 'ops/prometheus/alerts.yaml'), 'utf8')) as unknown;
  const failures: string[] = [];
  let validated = 0;

  const charts = readdirSync(path.join(ROOT, 'helm')).map((name) => `helm/${name}`);
  const cases: Case[] = charts.flatMap((chart) => {
    const ciDir = path.join(ROOT, chart, 'ci');
    return readdirSync(ciDir)
      .filter((file) => /\.ya?ml$/.test(file))
      .map((file) => ({ name: `${chart}/ci/${file}`, chart, args: ['-f', `${chart}/ci/${file}`] }));
  });
  cases.push({
    name: `${DEPLOYMENT_GUIDE} helm install example`,
    chart: 'helm/core-banking-gateway',
    args: guideExampleArgs(readFileSync(path.join(ROOT, DEPLOYMENT_GUIDE), 'utf8')),
  });

  for (const chart of charts) {
    // The defaults name no Redis and no Secrets: the chart must refuse rather than render a broken release.
    const refused = helmRun(['template', RELEASE, chart, '-n', NAMESPACE]);
    if (refused.ok) failures.push(`${chart}: rendered with its defaults, expected a refusal`);
    else if (!/config\.redis|secrets\./.test(refused.stderr))
      failures.push(`${chart}: refused with its defaults, but not naming config.redis or secrets.: ${refused.stderr.trim()}`);
    else console.log(`ok   ${chart} with its defaults is refused: ${refused.stderr.trim().split('\n')[0] ?? ''}`);
  }

  for (const c of cases) {
    const lint = helmRun(['lint', '--strict', c.chart, ...c.args]);
    if (!lint.ok) failures.push(`${c.name}: helm lint --strict failed:\n${lint.stdout}${lint.stderr}`);
    const rendered = helmRun(['template', RELEASE, c.chart, '-n', NAMESPACE, ...c.args]);
    if (!rendered.ok) {
      failures.push(`${c.name}: helm template failed: ${rendered.stderr.trim()}`);
      continue;
    }
    const manifests = parseAllDocuments(rendered.stdout)
      .map((doc) => doc.toJS() as Manifest | null)
      .filter((m): m is Manifest => m !== null);
    for (const manifest of manifests) {
      const label = `${c.name}: ${manifest.kind ?? '?'} ${manifest.metadata?.name ?? '?'}`;
      const Model = registry.get(`${manifest.apiVersion ?? ''}/${manifest.kind ?? ''}`);
      if (!Model) {
        failures.push(`${label}: no schema for ${manifest.apiVersion ?? '?'} ${manifest.kind ?? '?'}`);
        continue;
      }
      try {
        new Model(manifest).validate();
        validated++;
      } catch (error) {
        failures.push(`${label}: does not validate: ${describeErrors(error)}`);
      }
      if (manifest.kind === 'PrometheusRule' && !isDeepStrictEqual(manifest.spec, alerts)) {
        failures.push(`${label}: its rules differ from ops/prometheus/alerts.yaml`);
      }
    }
    console.log(`ok   ${c.name}: helm lint --strict, ${manifests.length} objects (${manifests.map((m) => m.kind).join(', ')})`);
  }

  if (failures.length > 0) {
    for (const failure of failures) console.error(`FAIL ${failure}`);
    process.exit(1);
  }
  console.log(`chart check: ${validated} objects rendered by helm and valid against the Kubernetes schemas`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
