/**
 * Real certificates for TLS tests, made by the `openssl` command in the run's temporary
 * folder: a private CA, and server or client certificates it signs (EC P-256, one day).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { testTempDir } from './temp-dir';

export interface CertificateFiles {
  readonly cert: string;
  readonly key: string;
}

export interface TestCa extends CertificateFiles {
  readonly dir: string;
  /** A certificate this CA signs for `commonName`, valid for the DNS names and IPs given. */
  issue(commonName: string, options?: { readonly dns?: readonly string[]; readonly ips?: readonly string[]; readonly client?: boolean }): CertificateFiles;
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore' });
}

export function createTestCa(name = 'cbg-test-ca'): TestCa {
  const dir = testTempDir('cbg-pki-');
  const file = (base: string): string => path.join(dir, base);
  openssl('req', '-x509', ...EC_KEY, '-keyout', file(`${name}.key`), '-out', file(`${name}.crt`), '-subj', `/CN=${name}`, '-days', '1');
  let serial = 0;
  return {
    dir,
    cert: file(`${name}.crt`),
    key: file(`${name}.key`),
    issue(commonName, options = {}) {
      serial += 1;
      const base = file(`${commonName}-${serial}`);
      openssl('req', ...EC_KEY, '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${commonName}`);
      const names = [...(options.dns ?? []).map((dns) => `DNS:${dns}`), ...(options.ips ?? []).map((ip) => `IP:${ip}`)];
      const extensions = [
        ...(names.length > 0 ? [`subjectAltName=${names.join(',')}`] : []),
        `extendedKeyUsage=${options.client ? 'clientAuth' : 'serverAuth'}`,
      ];
      writeFileSync(`${base}.ext`, `${extensions.join('\n')}\n`);
      openssl('x509', '-req', '-in', `${base}.csr`, '-CA', file(`${name}.crt`), '-CAkey', file(`${name}.key`), '-set_serial', String(1000 + serial), '-out', `${base}.crt`, '-days', '1', '-extfile', `${base}.ext`);
      return { cert: `${base}.crt`, key: `${base}.key` };
    },
  };
}
