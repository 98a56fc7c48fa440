/**
 * PEM files the gateway serves or presents (certificates, keys, CAs), read at start and
 * re-read when they change on disk, so that a rotated certificate (cert-manager writing in
 * place, or a Kubernetes Secret's symlink swap) takes effect without a restart.
 *
 * At start a missing, unreadable or invalid set is a TlsFileError naming the config key (the
 * process exits 2). Later, each change is checked whole by the caller's `build` (which makes a
 * TLS context: a key that does not match its certificate, or a half-written file, throws there)
 * and only a good set replaces the current one; a bad one is logged and the last good set stays.
 * Files are polled (fs.watchFile stats the path, so a symlink swap is seen; inotify on the
 * file itself would keep watching the old target).
 *
 * Reads the files it is given; calls back with each new good set.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { StartupError } from '../errors/startup-error';
import type { Logger } from '../logging/logger';

/** A file the gateway reads, with the config key that names it (for messages). */
export interface PemFile {
  readonly key: string;
  readonly path: string;
}

/** A start-up failure (exit 2): the set a config key names cannot be read or used. */
export class TlsFileError extends StartupError {
  override readonly name = 'TlsFileError';

  constructor(message: string) {
    super('tls-file', message);
  }
}

/** The files' contents by config key. */
export type PemSet = Readonly<Record<string, Buffer>>;

interface WatchedPemOptions<T> {
  readonly files: readonly PemFile[];
  /** Turns a set of contents into what the caller uses; throws when the set is not usable. */
  readonly build: (pems: PemSet) => T;
  /** Told of each new good set after the first. */
  readonly onChange: (built: T, pems: PemSet) => void;
  readonly logger: Logger;
  /** How often the files are checked. */
  readonly pollIntervalMs?: number;
}

function readAll(files: readonly PemFile[]): PemSet {
  const pems: Record<string, Buffer> = {};
  for (const file of files) pems[file.key] = readFileSync(file.path);
  return pems;
}

function fingerprint(pems: PemSet): string {
  const hash = createHash('sha256');
  for (const key of Object.keys(pems).sort()) hash.update(key).update(pems[key] as Buffer);
  return hash.digest('hex');
}

/** A set of PEM files, built once at start and again whenever one of them changes. */
export class WatchedPem<T> {
  private current: T;
  private currentPems: PemSet;
  private currentFingerprint: string;
  private readonly listener = (): void => this.reload();

  constructor(private readonly options: WatchedPemOptions<T>) {
    let pems: PemSet;
    try {
      pems = readAll(options.files);
    } catch (err) {
      const failed = options.files.find((file) => {
        try {
          readFileSync(file.path);
          return false;
        } catch {
          return true;
        }
      });
      throw new TlsFileError(`${failed?.key ?? 'tls'}: cannot read ${failed?.path ?? ''}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    try {
      this.current = options.build(pems);
    } catch (err) {
      throw new TlsFileError(`${options.files.map((file) => file.key).join(', ')}: not a usable certificate set: ${(err as Error).message}`);
    }
    this.currentPems = pems;
    this.currentFingerprint = fingerprint(pems);
    for (const file of options.files) watchFile(file.path, { interval: options.pollIntervalMs ?? 1000, persistent: false }, this.listener);
  }

  get value(): T {
    return this.current;
  }

  get pems(): PemSet {
    return this.currentPems;
  }

  stop(): void {
    for (const file of this.options.files) unwatchFile(file.path, this.listener);
  }

  /** Re-reads the files; a changed, usable set replaces the current one. */
  reload(): void {
    const { files, build, onChange, logger } = this.options;
    let pems: PemSet;
    try {
      pems = readAll(files);
    } catch (err) {
      logger.error(
        { keys: files.map((file) => file.key), reason: (err as NodeJS.ErrnoException).code ?? (err as Error).message },
        'TLS files unreadable: keeping the last good set',
      );
      return;
    }
    const next = fingerprint(pems);
    if (next === this.currentFingerprint) return;
    let built: T;
    try {
      built = build(pems);
    } catch (err) {
      logger.error(
        { keys: files.map((file) => file.key), reason: (err as Error).message },
        'TLS files changed but are not a usable set (half-written, or a key that does not match): keeping the last good set',
      );
      return;
    }
    this.current = built;
    this.currentPems = pems;
    this.currentFingerprint = next;
    logger.info({ keys: files.map((file) => file.key) }, 'TLS files changed: new connections use them');
    onChange(built, pems);
  }
}

/** When the first certificate in a PEM expires, in seconds since the epoch. */
export function certificateExpirySeconds(pem: Buffer): number {
  return Math.floor(new Date(new X509Certificate(pem).validTo).getTime() / 1000);
}

/**
 * When the first of a PEM bundle's certificates expires (a CA file may hold several), in seconds
 * since the epoch: whichever CA signs the peer's chain, the alert comes before it lapses.
 */
export function bundleExpirySeconds(pem: Buffer): number {
  const blocks = pem.toString('latin1').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return certificateExpirySeconds(pem);
  return Math.min(...blocks.map((block) => certificateExpirySeconds(Buffer.from(block, 'latin1'))));
}

/** The `x5t#S256` thumbprint of a certificate (RFC 8705): base64url SHA-256 of its DER form. */
export function certificateThumbprint(der: Buffer): string {
  return createHash('sha256').update(der).digest('base64url');
}
