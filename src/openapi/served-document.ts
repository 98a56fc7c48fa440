/**
 * GET /openapi.json as served: the document with `servers` naming the gateway's public URL, so
 * a tool that imports it (a collection, a generated client) calls this gateway and not `/`.
 * The URL is the one paging links use (src/core-client/forwarded.ts): `server.publicUrl`, else
 * the scheme and host a trusted proxy forwarded, else the listener the request arrived on; never
 * the request's own Host header, which anyone can set, and which a shared cache would then hand
 * to every other reader of the document.
 *
 * Reads the request's socket and, from trusted proxies only, its X-Forwarded-Proto/Host. The
 * document differs per origin, and so does its ETag (public-file.ts hashes the bytes): each
 * origin's copy is serialised once and kept, the 16 most recently asked for at most, so a proxy
 * forwarding ever new hosts costs a serialisation each, not memory.
 */
import type http from 'node:http';
import type { ForwardedResolver } from '../core-client/forwarded';
import type { OpenApiDocument } from './openapi';
import { publicFile, type PublicFile } from './public-file';

const ORIGINS_KEPT = 16;

/**
 * A public file that differs by the gateway's public origin (this document, the collection):
 * built on first use for each origin, and again when `stamp` changes (the collection follows the
 * access config's version), the ORIGINS_KEPT most recently asked for kept.
 */
export function filePerOrigin(
  forwarded: ForwardedResolver,
  build: (origin: string) => PublicFile,
  stamp: () => unknown = () => null,
): (req: http.IncomingMessage) => PublicFile {
  const byOrigin = new Map<string, { readonly stamp: unknown; readonly file: PublicFile }>();
  return function fileForOrigin(req) {
    const { proto, host } = forwarded(req);
    const origin = `${proto}://${host}`;
    const current = stamp();
    const kept = byOrigin.get(origin);
    // Most recently used last: the first key is the one to drop.
    byOrigin.delete(origin);
    const file = kept && kept.stamp === current ? kept.file : build(origin);
    if (byOrigin.size >= ORIGINS_KEPT) byOrigin.delete(byOrigin.keys().next().value as string);
    byOrigin.set(origin, { stamp: current, file });
    return file;
  };
}

export function servedOpenApiDocument(document: OpenApiDocument, forwarded: ForwardedResolver): (req: http.IncomingMessage) => PublicFile {
  return filePerOrigin(forwarded, (origin) => {
    const servers = [{ url: origin, description: 'This gateway: server.publicUrl, else the host a trusted proxy forwarded, else its listener' }];
    return publicFile(JSON.stringify({ ...document, servers }), 'application/json; charset=utf-8');
  });
}
