import { codeRefusedDetail } from './refusal-detail';

const CONFIG = { maxAttempts: 5, lockSeconds: 3600 };
const T0 = Date.UTC(2025, 6, 1, 9, 0, 0);
const RULE = 'After 5 wrong codes for a customer, from any vendor, changes to its bank accounts are locked for 60 min.';

describe('the detail of a two-factor code not accepted', () => {
  it("names the live code's expiry in UTC, to the second, and the lock rule", () => {
    const detail = codeRefusedDetail({ kind: 'refused', wrongTries: 2, locked: false, liveCode: { expiresAt: T0 + 600_500 } }, T0, CONFIG);
    expect(detail).toBe(
      'The two-factor code was not accepted: it is wrong, or it was sent for another change. The code sent stays valid until 2025-07-01T09:10:00Z (601 s more): ' +
        `ask the customer for it again, and request a new one only if it expired. ${RULE}`,
    );
  });

  it("tells the rule, never the wrong tries left: those count other vendors' tries too", () => {
    const afterOne = codeRefusedDetail({ kind: 'refused', wrongTries: 1, locked: false, liveCode: 'none' }, T0, CONFIG);
    const afterFour = codeRefusedDetail({ kind: 'refused', wrongTries: 4, locked: false, liveCode: 'none' }, T0, CONFIG);
    expect(afterFour).toBe(afterOne);
    expect(afterOne).toContain(`request a new one with POST /bankaccounts/verification. ${RULE}`);
  });

  it('says a lock under two minutes in seconds, and a longer one in minutes', () => {
    expect(codeRefusedDetail({ kind: 'refused', wrongTries: 1, locked: false, liveCode: 'none' }, T0, { ...CONFIG, lockSeconds: 90 })).toContain(
      'locked for 90 s.',
    );
    expect(codeRefusedDetail({ kind: 'refused', wrongTries: 1, locked: false, liveCode: 'none' }, T0, { ...CONFIG, lockSeconds: 600 })).toContain(
      'locked for 10 min.',
    );
  });

  it('tells nothing of a live code whose holder is not known (stored by an instance from before holders): as if none were valid', () => {
    const unknown = codeRefusedDetail({ kind: 'refused', wrongTries: 1, locked: false, liveCode: 'unknown' }, T0, CONFIG);
    expect(unknown).toBe(codeRefusedDetail({ kind: 'refused', wrongTries: 1, locked: false, liveCode: 'none' }, T0, CONFIG));
  });

  it('says the try that locked the customer did so, and that the code sent is void', () => {
    const detail = codeRefusedDetail({ kind: 'refused', wrongTries: 5, locked: true, liveCode: 'none' }, T0, CONFIG);
    expect(detail).toContain(
      "That wrong code reached the limit of 5 for this customer: the code sent is void, and changes to the customer's bank accounts are locked for 60 min.",
    );
    expect(detail).not.toContain('request a new one');
  });
});
