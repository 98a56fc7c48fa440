import { parse as parseLossless } from 'lossless-json';
import { GatewayError } from '../errors/error-catalogue';
import {
  BANK_ACCOUNT_VALIDATORS,
  bankAccountContracts,
  normaliseUkMobileNumber,
  validateBankAccountAdd,
  validateBankAccountUpdate,
  validateBankAccountVerification,
} from './bank-accounts';

describe('UK mobile numbers', () => {
  it.each([
    ['07400 123456', '+447400123456'],
    ['07400123456', '+447400123456'],
    ['447400123456', '+447400123456'],
    ['44 7400 123 456', '+447400123456'],
    ['00447400123456', '+447400123456'],
    ['0044 7400 123456', '+447400123456'],
    ['+447400123456', '+447400123456'],
    ['+44 7400 123456', '+447400123456'],
    ['+44-7400-123-456', '+447400123456'],
    ['07123 456789', '+447123456789'],
    ['07911 123456', '+447911123456'],
    ['07624 123456', '+447624123456'], // Isle of Man mobile
    ['07797 123456', '+447797123456'], // Jersey mobile
    ['07781 123456', '+447781123456'], // Guernsey mobile
    ['07700 900123', '+447700900123'], // Ofcom's drama range: fictional, what the sandbox's customers hold
    ['447700900694', '+447700900694'],
  ])('accepts %s as %s', (text, e164) => {
    expect(normaliseUkMobileNumber(text)).toEqual({ ok: true, e164 });
  });

  it.each([
    ['020 7946 0000', 'is a UK landline; SMS codes go to mobiles'],
    ['+44 20 7946 0000', 'is a UK landline; SMS codes go to mobiles'],
    ['0161 496 0000', 'is a UK landline; SMS codes go to mobiles'],
    ['01632 960123', 'is a UK landline; SMS codes go to mobiles'], // Ofcom's drama landline: not valid to libphonenumber-js, a landline all the same
    ['+44 1632 960123', 'is a UK landline; SMS codes go to mobiles'],
    ['016977 12345', 'is a UK landline; SMS codes go to mobiles'], // a 9-digit geographic number (Brampton)
    ['07011 123456', 'a personal number (070)'],
    ['+44 70 1234 5678', 'a personal number (070)'],
    ['07623 123456', 'a pager number (076)'],
    ['07600 123456', 'a pager number (076)'],
    ['0800 123 4567', 'a freephone number'],
    ['0300 123 4567', 'a non-geographic number (03)'],
    ['07700 900123 4', 'must be a UK mobile number'], // the drama range, one digit long
    ['0740 012345', 'not a valid UK number'], // one digit short
    ['074001234567', 'not a valid UK number'], // one digit long
    ['0161 4960', 'not a valid UK number'], // too short for a landline: not named one
    ['+353 87 123 4567', 'must be a UK mobile number'], // an Irish mobile
    ['7400 123456', 'must be a UK mobile number'], // no prefix
    ['+44 (0)7400 123456', 'must be a UK mobile number'],
    ['07400 12345a', 'must be a UK mobile number'],
    ['', 'must be a UK mobile number'],
  ])('refuses %s (%s)', (text, reason) => {
    const result = normaliseUkMobileNumber(text);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toContain(reason);
      expect(result.message).not.toContain(text.replace(/\D/g, '').slice(-6) || 'never');
    }
  });
});

describe('BankAccountVerification', () => {
  it('normalises the number and takes the code as a string or a six-digit number', () => {
    expect(validateBankAccountVerification({ CustomerId: 10001, MobileNumber: '07400 123456', Code: '012345' })).toEqual({
      ok: true,
      value: { CustomerId: 10001, MobileNumber: '+447400123456', Code: '012345' },
    });
    expect(validateBankAccountVerification({ CustomerId: 10001, MobileNumber: '+447400123456', Code: 654321 })).toMatchObject({ value: { Code: '654321' } });
    expect(validateBankAccountVerification({ CustomerId: 10001, MobileNumber: '+447400123456' })).toEqual({
      ok: true,
      value: { CustomerId: 10001, MobileNumber: '+447400123456' },
    });
  });

  it('matches field names case-insensitively and writes them as the spec does', () => {
    expect(validateBankAccountVerification({ customerId: 7, mobilenumber: '07400123456' })).toEqual({
      ok: true,
      value: { CustomerId: 7, MobileNumber: '+447400123456' },
    });
  });

  it.each([
    [{ MobileNumber: '07400123456' }, [{ field: 'CustomerId', message: 'required' }]],
    [{ CustomerId: '10001', MobileNumber: '07400123456' }, [{ field: 'CustomerId', message: 'must be a whole number (a JSON number)' }]],
    [{ CustomerId: 0, MobileNumber: '07400123456' }, [{ field: 'CustomerId', message: 'must be a positive id' }]],
    [{ CustomerId: 1, MobileNumber: '07400123456', Code: 12345 }, [{ field: 'Code', message: expect.stringContaining('6-digit') }]],
    [{ CustomerId: 1, MobileNumber: '07400123456', Code: '1234567' }, [{ field: 'Code', message: expect.stringContaining('6-digit') }]],
    [{ CustomerId: 1, MobileNumber: '07400123456', Code: 123456.5 }, [{ field: 'Code', message: expect.stringContaining('6-digit') }]],
    [{ CustomerId: 1, MobileNumber: '020 7946 0000' }, [{ field: 'MobileNumber', message: expect.stringContaining('landline') }]],
    [{ CustomerId: 1, MobileNumber: 7400123456 }, [{ field: 'MobileNumber', message: 'must be a UK mobile number (a JSON string)' }]],
    [{ CustomerId: 1, MobileNumber: '07400123456', Extra: 1 }, [{ field: 'Extra', message: 'unknown field' }]],
    [{ CustomerId: 1, customerid: 2, MobileNumber: '07400123456' }, [{ field: 'customerid', message: 'given twice (as CustomerId in another letter case)' }]],
    [[1, 2], [{ field: 'body', message: 'must be a JSON object' }]],
    [null, [{ field: 'body', message: 'must be a JSON object' }]],
  ])('refuses %j', (body, errors) => {
    expect(validateBankAccountVerification(body)).toEqual({ ok: false, errors });
  });
});

describe('BankAccountAdd and BankAccountUpdate', () => {
  const add = { CustomerId: 10001, PersonId: 10001, Name: ' J SMITH ', AccountNumber: '12345678', SortCode: '12-34-56', TwoFactorCode: 123456 };

  it('normalises the sort code, trims the name and keeps the code as text', () => {
    expect(validateBankAccountAdd(add)).toEqual({
      ok: true,
      value: { CustomerId: 10001, PersonId: 10001, Name: 'J SMITH', AccountNumber: '12345678', SortCode: '123456', TwoFactorCode: '123456' },
    });
  });

  it.each(['123456', '12-34-56', '12 34 56'])('accepts sort code %s', (sortCode) => {
    expect(validateBankAccountAdd({ ...add, SortCode: sortCode })).toMatchObject({ ok: true, value: { SortCode: '123456' } });
  });

  it.each(['12345', '1234567', '12-3456', '12-34 56', 'ab-cd-ef', '12.34.56'])('refuses sort code %s', (sortCode) => {
    expect(validateBankAccountAdd({ ...add, SortCode: sortCode })).toEqual({
      ok: false,
      errors: [{ field: 'SortCode', message: expect.stringContaining('sort code') }],
    });
  });

  it.each(['1234567', '123456789', '1234 5678', 'abcdefgh'])('refuses account number %s', (accountNumber) => {
    expect(validateBankAccountAdd({ ...add, AccountNumber: accountNumber })).toEqual({
      ok: false,
      errors: [{ field: 'AccountNumber', message: 'must be a UK account number: exactly 8 digits' }],
    });
  });

  it('lists every bad field, a missing two-factor code among them', () => {
    const { TwoFactorCode: _code, ...withoutCode } = add;
    const result = validateBankAccountAdd({ ...withoutCode, Name: '   ', PersonId: -1 });
    expect(result).toEqual({
      ok: false,
      errors: expect.arrayContaining([
        { field: 'PersonId', message: 'must be a positive id' },
        { field: 'Name', message: 'must not be empty' },
        { field: 'TwoFactorCode', message: 'required' },
      ]),
    });
    expect(result.ok || result.errors).toHaveLength(3);
  });

  it('takes DateClosed as an ISO 8601 date or datetime (sent in the core form, an offset in UTC) or null, and leaves it out when absent', () => {
    const { TwoFactorCode: _code, ...update } = add;
    expect(validateBankAccountUpdate({ ...update, DateClosed: '2025-07-01T09:30:00' })).toMatchObject({
      ok: true,
      value: { DateClosed: '2025-07-01T09:30:00' },
    });
    expect(validateBankAccountUpdate({ ...update, DateClosed: '2025-07-01' })).toMatchObject({ ok: true, value: { DateClosed: '2025-07-01T00:00:00' } });
    expect(validateBankAccountUpdate({ ...update, DateClosed: '2025-07-01T09:30:00.5Z' })).toMatchObject({
      ok: true,
      value: { DateClosed: '2025-07-01T09:30:00' },
    });
    expect(validateBankAccountUpdate({ ...update, DateClosed: '2025-07-01T09:30:00+02:00' })).toMatchObject({
      ok: true,
      value: { DateClosed: '2025-07-01T07:30:00' },
    });
    expect(validateBankAccountUpdate({ ...update, DateClosed: null })).toMatchObject({ ok: true, value: { DateClosed: null } });
    const absent = validateBankAccountUpdate(update);
    expect(absent.ok && 'DateClosed' in absent.value).toBe(false);
    for (const bad of ['2025-02-30T00:00:00', '01/07/2025', '2025-07-01T09:30:00+15:00', '2025-07-01T24:00:00', 20250701]) {
      expect(validateBankAccountUpdate({ ...update, DateClosed: bad })).toEqual({
        ok: false,
        errors: [{ field: 'DateClosed', message: expect.stringContaining('datetime') }],
      });
    }
    expect(validateBankAccountUpdate({ ...update, TwoFactorCode: '123456' })).toMatchObject({ ok: true, value: { TwoFactorCode: '123456' } });
    expect(validateBankAccountUpdate({ ...update, TwoFactorCode: 'abc' })).toMatchObject({ ok: false, errors: [{ field: 'TwoFactorCode' }] });
  });

  it('offers one validator per bank-account body schema id', () => {
    expect(Object.keys(BANK_ACCOUNT_VALIDATORS).sort()).toEqual(['BankAccountAdd', 'BankAccountUpdate', 'BankAccountVerification']);
  });
});

describe('bank-account body contracts', () => {
  const contracts = new Map(bankAccountContracts().map((c) => [c.id, c]));
  const json = (text: string) => ({ format: 'json' as const, json: parseLossless(text) });

  it('read lossless JSON numbers and keep TwoFactorCode out of the JSON for the core', () => {
    const decoded = contracts
      .get('BankAccountAdd')
      ?.decode(json('{"customerid":10001,"PersonId":10001,"Name":"J SMITH","AccountNumber":"12345678","SortCode":"12-34-56","TwoFactorCode":123456}'));
    expect(decoded?.value).toEqual({
      CustomerId: 10001,
      PersonId: 10001,
      Name: 'J SMITH',
      AccountNumber: '12345678',
      SortCode: '123456',
      TwoFactorCode: '123456',
    });
    expect(decoded?.coreJson).toBe('{"CustomerId":10001,"PersonId":10001,"Name":"J SMITH","AccountNumber":"12345678","SortCode":"123456"}');
  });

  it('throw one 400 invalid_request listing every bad field', () => {
    let thrown: unknown;
    try {
      contracts.get('BankAccountVerification')?.decode(json('{"CustomerId":1.5,"MobileNumber":"020 7946 0000"}'));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    expect(thrown).toMatchObject({ code: 'invalid_request', detail: 'The BankAccountVerification body has 2 invalid fields.' });
    expect((thrown as GatewayError).errors?.map((e) => e.field)).toEqual(['CustomerId', 'MobileNumber']);
  });

  it('describe themselves for the OpenAPI document, JSON only', () => {
    const components: Record<string, Record<string, unknown>> = {};
    for (const contract of contracts.values()) {
      expect(contract.formats).toEqual(['json']);
      expect(contract.describe?.(components)).toEqual({ $ref: `#/components/schemas/${contract.id}` });
    }
    expect(Object.keys(components).sort()).toEqual(['BankAccountAdd', 'BankAccountUpdate', 'BankAccountVerification']);
    expect(components.BankAccountAdd).toMatchObject({
      type: 'object',
      required: ['CustomerId', 'PersonId', 'Name', 'AccountNumber', 'SortCode', 'TwoFactorCode'],
      properties: { SortCode: { type: 'string', description: expect.stringContaining('12-34-56') } },
    });
    expect(components.BankAccountUpdate).toMatchObject({ properties: { DateClosed: { type: ['string', 'null'] } } });
  });
});
