/**
 * Real certificates for TLS tests, made by the `openssl` command in the run's temporary
 * folder: a private CA, and server or client certificates it signs (EC P-256, one day).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
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
  /** A client certificate this CA signed that expired long ago (valid in January 2020 only). */
  issueExpired(commonName: string): CertificateFiles;
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore' });
}

export function createTestCa(name = 'cbg-test-ca', options: { readonly days?: number } = {}): TestCa {
  const dir = testTempDir('cbg-pki-');
  const file = (base: string): string => path.join(dir, base);
  openssl('req', '-x509', ...EC_KEY, '-keyout', file(`${name}.key`), '-out', file(`${name}.crt`), '-subj', `/CN=${name}`, '-days', String(options.days ?? 1));
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
      openssl(
        'x509',
        '-req',
        '-in',
        `${base}.csr`,
        '-CA',
        file(`${name}.crt`),
        '-CAkey',
        file(`${name}.key`),
        '-set_serial',
        String(1000 + serial),
        '-out',
        `${base}.crt`,
        '-days',
        '1',
        '-extfile',
        `${base}.ext`,
      );
      return { cert: `${base}.crt`, key: `${base}.key` };
    },
    issueExpired(commonName) {
      serial += 1;
      const base = file(`${commonName}-${serial}`);
      // `openssl x509 -req` cannot back-date before OpenSSL 3.4; `openssl ca` can, with a minimal database.
      const db = file(`ca-db-${serial}`);
      mkdirSync(db);
      writeFileSync(path.join(db, 'index.txt'), '');
      // An even number of hex digits, as openssl reads the serial file.
      writeFileSync(path.join(db, 'serial'), `${(0x1000 + serial).toString(16)}\n`);
      writeFileSync(
        `${base}.cnf`,
        `[ca]\ndefault_ca=x\n[x]\ndatabase=${db}/index.txt\nnew_certs_dir=${db}\nserial=${db}/serial\ndefault_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n[ext]\nextendedKeyUsage=clientAuth\n`,
      );
      openssl('req', ...EC_KEY, '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${commonName}`);
      openssl(
        'ca',
        '-batch',
        '-config',
        `${base}.cnf`,
        '-cert',
        file(`${name}.crt`),
        '-keyfile',
        file(`${name}.key`),
        '-in',
        `${base}.csr`,
        '-out',
        `${base}.crt`,
        '-startdate',
        '20200101000000Z',
        '-enddate',
        '20200201000000Z',
        '-extensions',
        'ext',
      );
      return { cert: `${base}.crt`, key: `${base}.key` };
    },
  };
}
