import { VendorTraffic } from './vendor-traffic';

const MINUTE = 60_000;

describe('VendorTraffic', () => {
  it('counts each vendor’s requests, 4xx and 5xx over the last 15 minutes only', () => {
    const traffic = new VendorTraffic();
    const start = 1_000 * MINUTE;
    traffic.record('acme', 200, start);
    traffic.record('acme', 404, start + 1);
    traffic.record('acme', 502, start + 2 * MINUTE);
    traffic.record('beta', 200, start + 14 * MINUTE);

    expect(traffic.lastQuarterHour(start + 14 * MINUTE)).toEqual([
      { vendorId: 'acme', requests: 3, clientErrors: 1, serverErrors: 1 },
      { vendorId: 'beta', requests: 1, clientErrors: 0, serverErrors: 0 },
    ]);
    // A minute later the first minute's answers have left the window.
    expect(traffic.lastQuarterHour(start + 15 * MINUTE)).toEqual([
      { vendorId: 'acme', requests: 1, clientErrors: 0, serverErrors: 1 },
      { vendorId: 'beta', requests: 1, clientErrors: 0, serverErrors: 0 },
    ]);
  });
});
