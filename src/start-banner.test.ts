import { startBanner, startUrls, type BannerInput } from './start-banner';

const LISTENING: BannerInput = {
  vendorAddress: '0.0.0.0',
  vendorPort: 8080,
  vendorTls: false,
  publicUrl: null,
  adminAddress: '127.0.0.1',
  adminPort: 8081,
  adminTls: false,
};

describe('the URLs the gateway prints at start', () => {
  it('name the reference page and the API description on the vendor port, a wildcard bind as localhost', () => {
    expect(startUrls(LISTENING)).toEqual({
      adminUi: 'http://127.0.0.1:8081/',
      docs: 'http://localhost:8080/docs',
      openApi: 'http://localhost:8080/openapi.json',
    });
  });

  it('follow each port’s TLS and bracket an IPv6 address', () => {
    const urls = startUrls({ ...LISTENING, vendorAddress: '::1', vendorTls: true, adminAddress: '::1', adminTls: true });
    expect(urls).toEqual({ adminUi: 'https://[::1]:8081/', docs: 'https://[::1]:8080/docs', openApi: 'https://[::1]:8080/openapi.json' });
  });

  it('take the vendors’ base from server.publicUrl when it is set, path included', () => {
    const urls = startUrls({ ...LISTENING, publicUrl: 'https://api.bank.example/v1/' });
    expect(urls.docs).toBe('https://api.bank.example/v1/docs');
    expect(urls.openApi).toBe('https://api.bank.example/v1/openapi.json');
  });
});

describe('the start banner', () => {
  it('prints the reference page and the API description beside the admin UI and the generated token', () => {
    const banner = startBanner(startUrls(LISTENING), 'generated-token-0001') ?? '';
    expect(banner).toContain('Sandbox admin token (ADMIN_TOKEN was unset): generated-token-0001');
    expect(banner).toContain('Admin web UI: http://127.0.0.1:8081/');
    expect(banner).toContain('API reference: http://localhost:8080/docs');
    expect(banner).toContain('API description: http://localhost:8080/openapi.json');
  });

  it('is not printed when no token was generated (the console is then the JSON log)', () => {
    expect(startBanner(startUrls(LISTENING), null)).toBeNull();
  });
});
