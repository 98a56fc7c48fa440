import { codeRefusedDetail } from './refusal-detail';

const CONFIG = { maxAttempts: 5, lockSeconds: 3600, codeTtlSeconds: 600 };
const T0 = Date.UTC(2025, 6, 1, 9, 0, 0);

describe('the detail of a two-factor code not accepted', () => {
  it("names the live code's expiry in UTC, to the second, and the wrong codes left before the lock", () => {
    const detail = codeRefusedDetail({ kind: 'refused', wrongTries: 2, locked: false, liveCode: { expiresAt: T0 + 600_500 } }, T0, CONFIG);
    expect(detail).toBe(
      'The two-factor code was not accepted: it is wrong, or it was sent for another change. The code sent stays valid until 2025-07-01T09:10:00Z (601 s more): ' +
        "ask the customer for it again, and request a new one only if it expired. 3 more wrong codes lock the customer's bank-account changes for 60 min.",
    );
  });

  it('says one more wrong code locks, in the singular', () => {
    const detail = codeRefusedDetail({ kind: 'refused', wrongTries: 4, locked: false, liveCode: 'none' }, T0, { ...CONFIG, lockSeconds: 600 });
    expect(detail).toContain("request a new one with POST /bankaccounts/verification. 1 more wrong code locks the customer's bank-account changes");
    expect(detail).toContain('for 10 min.');
  });

  it("says how long codes last when the live code's holder is not known (a code stored by an instance from before holders)", () => {
    const detail = codeRefusedDetail({ kind: 'refused', wrongTries: 1, locked: false, liveCode: 'unknown' }, T0, CONFIG);
    expect(detail).toContain('A code sent stays valid for 10 min: request a new one only if yours expired. 4 more wrong codes lock');
  });

  it('says the try that locked the customer did so, and that the code sent is void', () => {
    const detail = codeRefusedDetail({ kind: 'refused', wrongTries: 5, locked: true, liveCode: 'none' }, T0, CONFIG);
    expect(detail).toContain(
      "That was wrong code 5 of 5 for this customer: the code sent is void, and changes to the customer's bank accounts are locked for 60 min.",
    );
    expect(detail).not.toContain('request a new one');
  });
});
