/**
 * What the gateway tells the person who started it: the URLs of the admin web UI, the vendors'
 * API reference page (`/docs`) and the API description (`/openapi.json`), and, in sandbox mode
 * with ADMIN_TOKEN unset, the admin token generated for the run. A new vendor developer's first
 * stop is the reference page, so it is printed beside the admin UI rather than left to the README.
 *
 * Reads the bound listeners' addresses and ports, `server.publicUrl` and whether each port speaks
 * TLS; sets nothing (main.ts prints the banner to the console and logs the URLs).
 */

/** What the URLs are made of: the running listeners and the configuration that names them. */
export interface BannerInput {
  readonly vendorAddress: string;
  readonly vendorPort: number;
  readonly vendorTls: boolean;
  /** `server.publicUrl`: the vendors' base URL when the gateway sits behind a proxy. */
  readonly publicUrl: string | null;
  readonly adminAddress: string;
  readonly adminPort: number;
  readonly adminTls: boolean;
}

interface StartUrls {
  readonly adminUi: string;
  readonly docs: string;
  readonly openApi: string;
}

/** A bound address as a browser can reach it: a wildcard bind is reachable on this machine as localhost. */
function hostOf(address: string): string {
  if (address === '0.0.0.0' || address === '::') return 'localhost';
  return address.includes(':') ? `[${address}]` : address;
}

export function startUrls(input: BannerInput): StartUrls {
  const vendorBase = input.publicUrl
    ? input.publicUrl.replace(/\/+$/, '')
    : `${input.vendorTls ? 'https' : 'http'}://${hostOf(input.vendorAddress)}:${input.vendorPort}`;
  return {
    adminUi: `${input.adminTls ? 'https' : 'http'}://${hostOf(input.adminAddress)}:${input.adminPort}/`,
    docs: `${vendorBase}/docs`,
    openApi: `${vendorBase}/openapi.json`,
  };
}

/**
 * The console banner, printed only when a person is trying the sandbox (a token was generated for
 * them): with a real core the console is the JSON log, which carries the same URLs instead.
 */
export function startBanner(urls: StartUrls, generatedAdminToken: string | null): string | null {
  if (!generatedAdminToken) return null;
  return [
    `Sandbox admin token (ADMIN_TOKEN was unset): ${generatedAdminToken}`,
    `Admin web UI: ${urls.adminUi} (sign in with that token)`,
    `API reference: ${urls.docs} ("Authorize" with a sandbox key from the README)`,
    `API description: ${urls.openApi}`,
    '',
  ].join('\n');
}
