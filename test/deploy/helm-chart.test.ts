/**
 * Static checks of the Helm chart, beside the real render of `npm run chart:check`
 * (chart-check.ts): every template is valid YAML
 * with the example values (chart-render.ts says how), every value a template reads exists in
 * values.yaml and values.schema.json, the schema refuses bad values, the chart's config covers
 * every gateway config key and yields a config the gateway accepts, the pod spec follows the
 * production rules, and the PrometheusRule carries ops/prometheus/alerts.yaml.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { parseDocument, isMap, isPair, isScalar, type YAMLMap } from 'yaml';
import { loadConfig } from '../../src/config/config';
import { configSchema } from '../../src/config/config.schema';
import { secretKeys } from '../../src/config/config-files';
import {
  CHART_DIR,
  deepMerge,
  lookup,
  readYamlFile,
  RequiredValueMissing,
  renderBySubstitution,
  templateFiles,
  valueReferences,
  type Values,
} from './chart-render';

const ROOT = path.resolve(__dirname, '../..');
const defaults = readYamlFile(path.join(CHART_DIR, 'values.yaml'));
const schema = JSON.parse(readFileSync(path.join(CHART_DIR, 'values.schema.json'), 'utf8')) as Values;
const examples = readdirSync(path.join(CHART_DIR, 'ci')).map((name) => [name, deepMerge(defaults, readYamlFile(path.join(CHART_DIR, 'ci', name)))] as const);
const validate = addFormats(new Ajv({ allErrors: true })).compile(schema);
/** The example with every option on: Sentinel, TLS, every Secret, ServiceMonitor, rules, NetworkPolicy. */
const everything = deepMerge(defaults, readYamlFile(path.join(CHART_DIR, 'ci/sentinel-values.yaml')));

/** Config keys that reach the pods from Secrets, never from values. */
const SECRET_KEYS = secretKeys();

type Manifest = { kind: string; spec?: unknown } & Values;

function render(values: Values): Manifest[] {
  return templateFiles().flatMap((file) => renderBySubstitution(file, values) as Manifest[]);
}

/** Config key paths, one level of nesting deep as the ConfigMap writes them (redis.tls.enabled). */
function configKeys(config: Values): string[] {
  return Object.entries(config).flatMap(([section, keys]) =>
    Object.entries(keys as Values).flatMap(([key, value]) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? Object.keys(value).map((inner) => `${section}.${key}.${inner}`)
        : [`${section}.${key}`],
    ),
  );
}

/** The contract variable for each config key (the table in templates/_helpers.tpl). */
function contractTable(): Map<string, string> {
  const helpers = readFileSync(path.join(CHART_DIR, 'templates/_helpers.tpl'), 'utf8');
  const dict = /\$contract := dict (.+?) \}\}/.exec(helpers)?.[1] ?? '';
  const words = [...dict.matchAll(/"([^"]+)"/g)].map((m) => m[1] as string);
  const table = new Map<string, string>();
  for (let i = 0; i < words.length; i += 2) table.set(words[i] as string, words[i + 1] as string);
  return table;
}

/** The environment the ConfigMap template writes for these values (same rules as configmap.yaml). */
function configEnvironment(config: Values): NodeJS.ProcessEnv {
  const contract = contractTable();
  const env: NodeJS.ProcessEnv = {};
  for (const keyPath of configKeys(config)) {
    const value = lookup(config, keyPath.split('.')).value;
    if (value === null || value === undefined) continue;
    const name = contract.get(keyPath);
    if (name) env[name] = String(value);
    else env[`GATEWAY__${keyPath.split('.').join('__')}`] = JSON.stringify(value);
  }
  return env;
}

describe('the Helm chart', () => {
  it.each(examples)('renders every template to valid YAML with %s', (_name, values) => {
    const kinds = render(values).map((manifest) => manifest.kind);
    expect(kinds.sort()).toEqual(
      [
        'ConfigMap',
        'Deployment',
        'HorizontalPodAutoscaler',
        'NetworkPolicy',
        'PodDisruptionBudget',
        'PrometheusRule',
        'Service',
        'Service',
        'Service',
        'ServiceAccount',
        'ServiceMonitor',
      ].sort(),
    );
  });

  it('refuses to render without the admin token Secret', () => {
    expect(() => render(deepMerge(defaults, { config: { redis: { url: 'redis://redis:6379' } } }))).toThrow(RequiredValueMissing);
  });

  it('reads only values that values.yaml and values.schema.json both define', () => {
    const missing: string[] = [];
    for (const file of templateFiles().concat(path.join(CHART_DIR, 'templates/_helpers.tpl'), path.join(CHART_DIR, 'templates/NOTES.txt'))) {
      for (const keyPath of valueReferences(readFileSync(file, 'utf8'))) {
        if (!lookup(defaults, keyPath).found) missing.push(`values.yaml: ${keyPath.join('.')}`);
        if (
          !lookup(
            schema,
            keyPath.flatMap((key) => ['properties', key]),
          ).found
        )
          missing.push(`values.schema.json: ${keyPath.join('.')}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('accepts values.yaml and every example values file', () => {
    for (const [name, values] of [['values.yaml', defaults] as const, ...examples]) {
      expect({ name, valid: validate(values), errors: validate.errors ?? null }).toEqual({ name, valid: true, errors: null });
    }
  });

  it.each([
    ['no replicas', { replicaCount: 0 }],
    ['the latest tag', { image: { tag: 'latest' } }],
    ['a password in the Redis URL', { config: { redis: { url: 'redis://user:pw@redis:6379' } } }],
    ['a plaintext admin token', { secrets: { adminToken: { value: 'plain-admin-token-123' } } }],
    ['a plaintext single sign-on client secret', { config: { admin: { oidc: { clientSecret: 'plain-client-secret' } } } }],
    ['a single sign-on issuer that is no web address', { config: { admin: { oidc: { issuer: 'login.bank.example/realms/staff' } } } }],
    ['a sentinel without a port', { config: { redis: { sentinels: [{ host: 'sentinel' }] } } }],
    ['an unknown config key', { config: { server: { bogus: 1 } } }],
    ['an unknown log level', { config: { log: { level: 'loud' } } }],
    ['an admin Service of type LoadBalancer', { services: { admin: { type: 'LoadBalancer' } } }],
    ['an ExternalName vendor Service', { services: { vendor: { type: 'ExternalName' } } }],
    ['a negative preStop sleep', { lifecycle: { preStopSleepSeconds: -1 } }],
    ['a CPU target over 100%', { autoscaling: { targetCPUUtilizationPercentage: 150 } }],
    ['a Secret name with capitals', { secrets: { redis: { existingSecret: 'Redis_Secret' } } }],
    ['a port out of range', { config: { server: { statusPort: 70000 } } }],
  ])('refuses %s', (_label, patch) => {
    expect(validate(deepMerge(defaults, patch as Values))).toBe(false);
  });

  it('documents every value of values.yaml with a comment on it or on its section', () => {
    const undocumented: string[] = [];
    const walk = (map: YAMLMap, at: string[], documented: boolean): void => {
      for (const item of map.items) {
        if (!isPair(item) || !isScalar(item.key)) continue;
        const keyPath = [...at, String(item.key.value)];
        const commented = Boolean(item.key.commentBefore) || (map.items[0] === item && Boolean(map.commentBefore));
        if (isMap(item.value)) walk(item.value, keyPath, commented || documented);
        else if (!commented && !documented) undocumented.push(keyPath.join('.'));
      }
    };
    const document = parseDocument(readFileSync(path.join(CHART_DIR, 'values.yaml'), 'utf8'));
    walk(document.contents as YAMLMap, [], false);
    expect(undocumented).toEqual([]);
  });

  it('covers every gateway config key in values.config (secrets aside) and its schema', () => {
    const gatewayKeys = configKeys(configSchema.parse({}) as Values).filter((key) => !SECRET_KEYS.includes(key));
    expect(configKeys(defaults.config as Values).sort()).toEqual(gatewayKeys.sort());
    const schemaConfig = (schema.properties as Values).config as Values;
    const schemaKeys = Object.entries(schemaConfig.properties as Values).flatMap(([section, sectionSchema]) =>
      Object.entries((sectionSchema as Values).properties as Values).flatMap(([key, keySchema]) => {
        const inner = (keySchema as Values).properties as Values | undefined;
        return inner ? Object.keys(inner).map((name) => `${section}.${key}.${name}`) : [`${section}.${key}`];
      }),
    );
    expect(schemaKeys.sort()).toEqual(gatewayKeys.sort());
  });

  it("sets in values.config the gateway's own defaults, but for the chart's deliberate choices", () => {
    /** A chart runs replicas: the rate limit is shared by about autoscaling.minReplicas pods. */
    const chartChoices: Values = { rateLimit: { expectedInstances: 3 } };
    const gatewayDefaults = JSON.parse(JSON.stringify(configSchema.parse({}))) as Values;
    for (const key of SECRET_KEYS) {
      const [section, ...rest] = key.split('.');
      const parent = lookup(gatewayDefaults, [section as string, ...rest.slice(0, -1)]).value as Values;
      delete parent[rest[rest.length - 1] as string];
    }
    expect(defaults.config).toEqual(deepMerge(gatewayDefaults, chartChoices));
  });

  it('names each contract variable after the config key the gateway sets from it', () => {
    const table = contractTable();
    expect([...table.values()].sort()).toEqual(['ACCESS_FILE', 'ADMIN_PORT', 'CORE_URL', 'LOG_LEVEL', 'PORT', 'REDIS_URL', 'SANDBOX_PORT', 'STATUS_PORT']);
    const samples: Record<string, string> = { 'redis.url': 'redis://r:6379', 'core.url': 'http://core:80', 'log.level': 'warn', 'access.file': '/etc/a.yaml' };
    for (const [keyPath, name] of table) {
      const sample = samples[keyPath] ?? '4321';
      const config = loadConfig({
        env: {
          [name]: sample,
          ADMIN_TOKEN: 'a-token-from-the-secret-0001',
          GATEWAY__twoFactor__pepper: 'p'.repeat(32),
          GATEWAY__sandbox__allowWithRealCore: 'true',
        },
      }) as unknown as Values;
      expect({ keyPath, value: String(lookup(config, keyPath.split('.')).value) }).toEqual({ keyPath, value: sample });
    }
  });

  it.each(examples)('gives the gateway a configuration it accepts with %s', (_name, values) => {
    const env = {
      ...configEnvironment(values.config as Values),
      ADMIN_TOKEN: 'a-token-from-the-secret-0001',
      GATEWAY__redis__password: 'from-the-secret',
      GATEWAY__twoFactor__pepper: 'a-pepper-from-the-secret-of-32-chars-0001',
      GATEWAY__sms__http__bearerToken: 'sms-token-from-the-secret',
    };
    const config = loadConfig({ env });
    const redis = (values.config as { redis: Values }).redis;
    expect(config.redis).toMatchObject({ sentinels: redis.sentinels, nodes: redis.nodes });
    expect(config.server.statusPort).toBe((values.config as { server: Values }).server.statusPort);
  });

  it('runs pods non-root, read-only, unprivileged, with probes on the status port and a preStop drain', () => {
    const values = everything;
    const deployment = render(values).find((m) => m.kind === 'Deployment') as Manifest;
    const pod = lookup(deployment, ['spec', 'template', 'spec']).value as Values;
    const container = (pod.containers as Values[])[0] as Values;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      privileged: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.startupProbe).toMatchObject({ httpGet: { path: '/health/live', port: 'status' } });
    expect(container.livenessProbe).toMatchObject({ httpGet: { path: '/health/live', port: 'status' } });
    expect(container.readinessProbe).toMatchObject({ httpGet: { path: '/health/ready', port: 'status' } });
    expect(container.ports).toEqual([
      { name: 'vendor', containerPort: 8080, protocol: 'TCP' },
      { name: 'admin', containerPort: 8081, protocol: 'TCP' },
      { name: 'status', containerPort: 8082, protocol: 'TCP' },
    ]);
    const lifecycle = values.lifecycle as { preStopSleepSeconds: number; terminationGracePeriodSeconds: number };
    const shutdown = (values.config as { shutdown: { lameDuckMs: number; drainTimeoutMs: number } }).shutdown;
    expect(container.lifecycle).toEqual({ preStop: { exec: { command: ['sleep', String(lifecycle.preStopSleepSeconds)] } } });
    expect((pod.terminationGracePeriodSeconds as number) * 1000).toBeGreaterThan(
      lifecycle.preStopSleepSeconds * 1000 + shutdown.lameDuckMs + shutdown.drainTimeoutMs,
    );
    expect(shutdown.drainTimeoutMs).toBeGreaterThanOrEqual((values.config as { core: { timeoutMs: number } }).core.timeoutMs);
    expect(container.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
    const env = container.env as Array<{ name: string; value?: unknown }>;
    expect(env.filter((variable) => variable.value !== undefined)).toEqual([]);
  });

  it("leaves the image's NODE_OPTIONS by default and sets the chart's nodeOptions when given", () => {
    const env = (values: Values): Array<{ name: string; value?: unknown }> => {
      const deployment = render(values).find((m) => m.kind === 'Deployment') as Manifest;
      const pod = lookup(deployment, ['spec', 'template', 'spec']).value as Values;
      return ((pod.containers as Values[])[0] as Values).env as Array<{ name: string; value?: unknown }>;
    };
    expect(env(everything).map((variable) => variable.name)).not.toContain('NODE_OPTIONS');
    const flags = '--max-semi-space-size=64 --max-old-space-size-percentage=75';
    expect(env({ ...everything, nodeOptions: flags })).toContainEqual({ name: 'NODE_OPTIONS', value: flags });
  });

  it('keeps the admin Service ClusterIP, whatever the vendor Service is', () => {
    const services = render(everything).filter((m) => m.kind === 'Service');
    expect(services.map((s) => lookup(s, ['spec', 'type']).value)).toEqual(['LoadBalancer', 'ClusterIP', 'ClusterIP']);
  });

  it('carries in its PrometheusRule the alert rules of ops/prometheus/alerts.yaml', () => {
    const copy = readFileSync(path.join(CHART_DIR, 'files/prometheus-rules.yaml'), 'utf8');
    const original = path.join(ROOT, 'ops/prometheus/alerts.yaml');
    if (existsSync(original)) expect(copy).toBe(readFileSync(original, 'utf8'));
    const rule = render(everything).find((m) => m.kind === 'PrometheusRule') as Manifest;
    expect((lookup(rule, ['spec', 'groups']).value as unknown[]).length).toBeGreaterThan(0);
  });

  it("deploys the package's version by default", () => {
    const chart = readYamlFile(path.join(CHART_DIR, 'Chart.yaml'));
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(chart.appVersion).toBe(pkg.version);
  });
});
