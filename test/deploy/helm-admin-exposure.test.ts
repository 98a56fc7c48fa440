/**
 * The chart's admin port, rendered by the real Helm (helm-binary.ts): by default it binds
 * loopback inside the pod (reached with `kubectl port-forward`, as NOTES.txt says), with no
 * admin Service; exposing it (config.server.adminHost 0.0.0.0) renders only behind the
 * NetworkPolicy with a non-empty allow-list that does not admit everyone, and the chart refuses
 * otherwise with a message naming what to set. The gateway's own loader reads the address the
 * ConfigMap carries.
 */
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config/config';
import { helmRun, helmTemplate, RELEASE_REQUIRED_VALUES } from './helm-binary';

const EXPOSED = '--set=config.server.adminHost=0.0.0.0';
const OPS_PEER = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ops' } }, podSelector: { matchLabels: { app: 'gatewayctl' } } };

interface Manifest {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
}

function template(...args: string[]): { ok: boolean; manifests: Manifest[]; stderr: string } {
  const run = helmTemplate(...args);
  const manifests = run.ok
    ? parseAllDocuments(run.stdout)
        .map((doc) => doc.toJS() as Manifest | null)
        .filter((m): m is Manifest => m !== null)
    : [];
  return { ok: run.ok, manifests, stderr: run.stderr };
}

const adminRule = (policy: Manifest | undefined): Record<string, unknown> | undefined =>
  ((policy?.spec?.ingress ?? []) as Array<{ ports: Array<{ port: string }>; from?: unknown }>).find((rule) => rule.ports.some((port) => port.port === 'admin'));

describe('the chart by default', () => {
  let manifests: Manifest[];
  beforeAll(() => {
    const rendered = template();
    expect(rendered.stderr).toBe('');
    manifests = rendered.manifests;
  });

  it('binds the admin port to loopback inside the pod, and the gateway reads that address', () => {
    const configMap = manifests.find((m) => m.kind === 'ConfigMap') as Manifest;
    const env = { ...configMap.data, GATEWAY__twoFactor__pepper: 'a-pepper-from-the-secret-of-32-chars-0001', ADMIN_TOKEN: 'a-token-from-the-secret-0001' };
    expect(configMap.data?.GATEWAY__server__adminHost).toBe('"127.0.0.1"');
    expect(loadConfig({ env }).server.adminHost).toBe('127.0.0.1');
  });

  it('renders no admin Service, and a NetworkPolicy that admits no one to the admin port', () => {
    expect(manifests.filter((m) => m.kind === 'Service').map((m) => m.metadata.name)).toEqual([
      'gateway-core-banking-gateway',
      'gateway-core-banking-gateway-status',
    ]);
    const policy = manifests.find((m) => m.kind === 'NetworkPolicy');
    expect(policy).toBeDefined();
    expect(adminRule(policy)).toBeUndefined();
  });

  it('keeps the probes on the status port, which still binds every address', () => {
    const deployment = manifests.find((m) => m.kind === 'Deployment') as Manifest;
    const container = (deployment.spec as { template: { spec: { containers: Array<Record<string, { httpGet: { port: string } }>> } } }).template.spec
      .containers[0];
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) expect(container?.[probe]?.httpGet.port).toBe('status');
    const configMap = manifests.find((m) => m.kind === 'ConfigMap') as Manifest;
    expect(configMap.data?.GATEWAY__server__host).toBe('"0.0.0.0"');
  });

  it('tells in its notes how to reach the admin port: kubectl port-forward', () => {
    const install = helmRun(['install', 'gateway', 'helm/core-banking-gateway', '-n', 'payments', '--dry-run=client', ...RELEASE_REQUIRED_VALUES]);
    expect(install.stderr).toBe('');
    expect(install.stdout).toContain('kubectl -n payments port-forward deployment/gateway-core-banking-gateway 8081:8081');
  });
});

describe('the chart with the admin port exposed', () => {
  const EXPOSURE_MESSAGE =
    'config.server.adminHost 0.0.0.0 exposes the admin port to every pod in the cluster: set networkPolicy.enabled=true and name who may reach it in networkPolicy.adminFrom';

  it.each([
    ['without the NetworkPolicy', ['--set=networkPolicy.enabled=false', `--set-json=networkPolicy.adminFrom=${JSON.stringify([OPS_PEER])}`], EXPOSURE_MESSAGE],
    ['with the NetworkPolicy but an empty allow-list', ['--set=networkPolicy.enabled=true'], EXPOSURE_MESSAGE],
    [
      'with a peer of every namespace',
      [`--set-json=networkPolicy.adminFrom=${JSON.stringify([{ namespaceSelector: {}, podSelector: { matchLabels: { app: 'x' } } }])}`],
      'networkPolicy.adminFrom[0]: an empty namespaceSelector admits every namespace',
    ],
    [
      'with a peer of every address',
      [`--set-json=networkPolicy.adminFrom=${JSON.stringify([OPS_PEER, { ipBlock: { cidr: '::/0' } }])}`],
      'networkPolicy.adminFrom[1]: ipBlock ::/0 admits every address',
    ],
  ])('refuses to render %s, saying what to set', (_label, args, message) => {
    const rendered = template(EXPOSED, ...args);
    expect(rendered.ok).toBe(false);
    expect(rendered.stderr).toContain(message);
  });

  it('renders with an allow-list: the NetworkPolicy admits exactly it to the admin port, and the admin Service is ClusterIP', () => {
    const rendered = template(EXPOSED, `--set-json=networkPolicy.adminFrom=${JSON.stringify([OPS_PEER])}`);
    expect(rendered.stderr).toBe('');
    expect(adminRule(rendered.manifests.find((m) => m.kind === 'NetworkPolicy'))).toEqual({ ports: [{ port: 'admin', protocol: 'TCP' }], from: [OPS_PEER] });
    const admin = rendered.manifests.find((m) => m.kind === 'Service' && m.metadata.name.endsWith('-admin'));
    expect(admin?.spec).toMatchObject({ type: 'ClusterIP', ports: [{ name: 'admin', targetPort: 'admin' }] });
    const configMap = rendered.manifests.find((m) => m.kind === 'ConfigMap') as Manifest;
    expect(configMap.data?.GATEWAY__server__adminHost).toBe('"0.0.0.0"');
  });
});
