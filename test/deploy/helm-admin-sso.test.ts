/**
 * Single sign-on to the admin web UI in the chart, rendered by the real Helm (helm-binary.ts):
 * `config.admin.oidc` reaches the pods through the ConfigMap and the client secret only from the
 * Secret named in `secrets.adminOidcClientSecret` (ADMIN_OIDC_CLIENT_SECRET, by secretKeyRef),
 * never from values; an issuer without a client id, a redirect address or a role's group is
 * refused at render with a message naming the key. The gateway's own loader reads what the
 * ConfigMap and the Secret give it.
 */
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config/config';
import { helmTemplate } from './helm-binary';

const ISSUER = 'https://login.example-bank.com/realms/staff';
const REDIRECT = 'https://gateway-admin.bank.internal/ui/sso/callback';
const SSO = [
  `--set=config.admin.oidc.issuer=${ISSUER}`,
  '--set=config.admin.oidc.clientId=core-banking-gateway',
  `--set=config.admin.oidc.redirectUrl=${REDIRECT}`,
  `--set-json=config.admin.oidc.roles=${JSON.stringify({ owner: ['gateway-owners'], approver: [], operator: ['gateway-operators'], viewer: [] })}`,
  '--set-json=config.admin.oidc.roleRefreshMinutes=7.5',
  '--set=config.admin.tokenSignIn=false',
];
const CLIENT_SECRET = ['--set=secrets.adminOidcClientSecret.existingSecret=gateway-admin-oidc'];

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Manifest {
  kind: string;
  data?: Record<string, string>;
  spec?: { template?: { spec: { containers: Array<{ env: EnvVar[] }> } } };
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

const configMapOf = (manifests: Manifest[]): Record<string, string> => manifests.find((m) => m.kind === 'ConfigMap')?.data ?? {};
const envOf = (manifests: Manifest[]): EnvVar[] => manifests.find((m) => m.kind === 'Deployment')?.spec?.template?.spec.containers[0]?.env ?? [];

describe('the chart with single sign-on', () => {
  it('leaves it off by default: no issuer in the ConfigMap, no client secret variable', () => {
    const rendered = template();
    expect(rendered.stderr).toBe('');
    expect(configMapOf(rendered.manifests).GATEWAY__admin__oidc__issuer).toBeUndefined();
    expect(configMapOf(rendered.manifests).GATEWAY__admin__tokenSignIn).toBe('true');
    expect(envOf(rendered.manifests).map((v) => v.name)).not.toContain('ADMIN_OIDC_CLIENT_SECRET');
  }, 60_000);

  it('passes the provider settings through the ConfigMap and the client secret only from its Secret, and the gateway accepts them', () => {
    const rendered = template(...SSO, ...CLIENT_SECRET);
    expect(rendered.stderr).toBe('');
    const data = configMapOf(rendered.manifests);
    expect(data).toMatchObject({
      GATEWAY__admin__oidc__issuer: JSON.stringify(ISSUER),
      GATEWAY__admin__oidc__redirectUrl: JSON.stringify(REDIRECT),
      GATEWAY__admin__tokenSignIn: 'false',
    });
    expect(Object.keys(data).filter((name) => /secret/i.test(name))).toEqual([]);
    expect(envOf(rendered.manifests).find((v) => v.name === 'ADMIN_OIDC_CLIENT_SECRET')).toEqual({
      name: 'ADMIN_OIDC_CLIENT_SECRET',
      valueFrom: { secretKeyRef: { name: 'gateway-admin-oidc', key: 'client-secret' } },
    });

    const config = loadConfig({
      env: {
        ...data,
        ADMIN_TOKEN: 'a-token-from-the-secret-0001',
        GATEWAY__twoFactor__pepper: 'a-pepper-from-the-secret-of-32-chars-0001',
        ADMIN_OIDC_CLIENT_SECRET: 'a-client-secret-from-the-secret',
      },
    });
    expect(config.admin.tokenSignIn).toBe(false);
    expect(config.admin.oidc).toEqual({
      issuer: ISSUER,
      clientId: 'core-banking-gateway',
      clientSecret: 'a-client-secret-from-the-secret',
      redirectUrl: REDIRECT,
      rolesClaim: 'groups',
      roles: { owner: ['gateway-owners'], approver: [], operator: ['gateway-operators'], viewer: [] },
      roleRefreshMinutes: 7.5,
      scopes: 'openid profile email',
    });
  }, 60_000);

  it('renders a public client (PKCE only) when no Secret is named', () => {
    const rendered = template(...SSO);
    expect(rendered.stderr).toBe('');
    expect(envOf(rendered.manifests).map((v) => v.name)).not.toContain('ADMIN_OIDC_CLIENT_SECRET');
  }, 60_000);

  it.each([
    ['without a client id', '--set=config.admin.oidc.clientId=null', 'config.admin.oidc.clientId is required when config.admin.oidc.issuer is set'],
    [
      'without a redirect address',
      '--set=config.admin.oidc.redirectUrl=null',
      'config.admin.oidc.redirectUrl is required when config.admin.oidc.issuer is set',
    ],
    [
      'without a group for any role',
      `--set-json=config.admin.oidc.roles=${JSON.stringify({ owner: [], approver: [], operator: [], viewer: [] })}`,
      'config.admin.oidc.roles: map at least one role',
    ],
  ])(
    'refuses to render an issuer %s, naming the key',
    (_label, change, message) => {
      const rendered = template(...SSO, change);
      expect(rendered.ok).toBe(false);
      expect(rendered.stderr).toContain(message);
    },
    60_000,
  );

  it('refuses a client secret written in values: it comes from a Secret', () => {
    const rendered = template(...SSO, '--set=config.admin.oidc.clientSecret=plain-text-secret');
    expect(rendered.ok).toBe(false);
    expect(rendered.stderr).toMatch(/clientSecret/);
    expect(rendered.stderr).not.toContain('plain-text-secret');
  }, 60_000);
});
