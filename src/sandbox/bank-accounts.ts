/**
 * The sandbox core's bank-account writes: `POST /bankaccounts/add` and
 * `PUT /bankaccounts/{bankaccountid}` (the reads are in relations.ts).
 *
 * Reads and changes `data.bankAccounts`; checks customers and people. Rules the spec leaves to
 * the core, as the sandbox keeps them:
 * - Bodies carry CustomerId, PersonId, Name, AccountNumber (8 digits) and SortCode (6 digits,
 *   `12-34-56` accepted, stored as `123456`), all required; the PUT may carry DateClosed.
 * - The customer and the person must exist, and the person must be the customer's: in this
 *   core one person belongs to each customer and shares its number (PersonId = CustomerId).
 *   Otherwise 400 naming the field. A bank account never moves to another customer.
 * - A customer cannot hold the same open account (sort code and number) twice: 409.
 * - The add answers 201 with the record and its Location; it opens the account (DateClosed null).
 *   `TwoFactorCode` is accepted and ignored: the gateway checks the code and removes it
 *   before forwarding; called directly, this core trusts its caller as it does for every write.
 * - The PUT replaces Name, AccountNumber and SortCode and answers 200 with the record.
 *   DateClosed, the spec's one state: a datetime closes the account (inactive) or corrects
 *   the closing date; `null` reopens it; leaving the field out keeps the account as it is,
 *   so a PUT that only renames a closed account never reopens it by accident.
 * - `POST /bankaccounts/verification` is not simulated: the gateway owns the second factor,
 *   answers it itself and never forwards it, so no core sees it.
 */
import type { SandboxData } from './data';
import { pathId, sendJson, type Handler } from './handler';
import type { JsonObject } from './json';
import { BANK_ACCOUNT_FIELDS, fieldDefinitions, inSchemaOrder, type BankAccount } from './model';
import { SandboxProblem, invalid, notFound, type FieldProblem } from './problems';
import { readFields, readJsonObject } from './validation';

const HOLDER_FIELDS = { CustomerId: 'int', PersonId: 'int', Name: 'string', AccountNumber: 'string', SortCode: 'string' } as const;
const ADD_FIELDS = fieldDefinitions(HOLDER_FIELDS);
const UPDATE_FIELDS = fieldDefinitions({ ...HOLDER_FIELDS, DateClosed: 'datetime|null' });
/** Sent by vendors with the add; the gateway has checked it. */
const TWO_FACTOR_FIELD = 'TwoFactorCode';
const NAME_MAX = 100;

interface AccountDetails {
  readonly customerId: number;
  readonly personId: number;
  readonly name: string;
  readonly accountNumber: string;
  readonly sortCode: string;
}

/** The holder and account fields, checked against each other and the data; 400 listing every problem. */
function accountDetails(data: SandboxData, values: Record<string, unknown>): AccountDetails {
  const customerId = values.CustomerId as number;
  const personId = values.PersonId as number;
  const name = (values.Name as string).trim();
  const accountNumber = values.AccountNumber as string;
  const sortCode = /^(\d{2})([- ]?)(\d{2})\2(\d{2})$/.exec((values.SortCode as string).trim());
  const errors: FieldProblem[] = [];
  if (!data.customers.has(customerId)) errors.push({ field: 'CustomerId', message: `no customer with number ${customerId}` });
  if (!data.people.has(personId)) errors.push({ field: 'PersonId', message: `no person with MemberId ${personId}` });
  else if (data.customers.has(customerId) && personId !== customerId) {
    errors.push({ field: 'PersonId', message: `person ${personId} does not belong to customer ${customerId}` });
  }
  if (name.length === 0 || name.length > NAME_MAX) errors.push({ field: 'Name', message: `must be 1 to ${NAME_MAX} characters` });
  if (!/^\d{8}$/.test(accountNumber)) errors.push({ field: 'AccountNumber', message: 'must be exactly 8 digits' });
  if (!sortCode) errors.push({ field: 'SortCode', message: 'must be 6 digits, e.g. 123456 or 12-34-56' });
  if (errors.length > 0 || !sortCode) throw invalid(errors);
  return { customerId, personId, name, accountNumber, sortCode: `${sortCode[1]}${sortCode[3]}${sortCode[4]}` };
}

/** 409 when the customer already holds this account open, other than `exceptId`. */
function refuseDuplicate(data: SandboxData, details: AccountDetails, exceptId: number | null): void {
  const twin = data.bankAccounts
    .where('customer', details.customerId)
    .find(
      (h) =>
        h.record.Id !== exceptId && h.record.DateClosed === null && h.record.SortCode === details.sortCode && h.record.AccountNumber === details.accountNumber,
    );
  if (twin) throw new SandboxProblem(409, `customer ${details.customerId} already holds this account open as bank account ${twin.record.Id}`);
}

function withoutTwoFactorCode(body: JsonObject): JsonObject {
  const copy: JsonObject = Object.create(null) as JsonObject;
  for (const [name, value] of Object.entries(body)) if (name !== TWO_FACTOR_FIELD) copy[name] = value;
  return copy;
}

function record(id: number, details: AccountDetails, dateClosed: string | null): BankAccount {
  return inSchemaOrder(BANK_ACCOUNT_FIELDS, {
    Id: id,
    Name: details.name,
    AccountNumber: details.accountNumber,
    DateClosed: dateClosed,
    SortCode: details.sortCode,
  });
}

export function bankAccountHandlers(data: SandboxData): Map<string, Handler> {
  const add: Handler = ({ req, res }) => {
    const { values } = readFields(withoutTwoFactorCode(readJsonObject(req)), ADD_FIELDS, { requireAll: true });
    const details = accountDetails(data, values);
    refuseDuplicate(data, details, null);
    const id = data.bankAccounts.nextKey();
    const holding = data.bankAccounts.insert({ record: record(id, details, null), customerId: details.customerId, personId: details.personId });
    res.location(`/bankaccounts/${id}`);
    sendJson(res, 201, holding.record);
  };

  const update: Handler = ({ req, res, params }) => {
    const id = pathId(params, 'bankaccountid');
    const current = data.bankAccounts.get(id);
    if (!current) throw notFound(`no bank account with Id ${id}`);
    const { values } = readFields(readJsonObject(req), UPDATE_FIELDS, { requireAll: true, exempt: ['DateClosed'] });
    const details = accountDetails(data, values);
    if (details.customerId !== current.customerId) {
      throw invalid([{ field: 'CustomerId', message: `bank account ${id} is not held by customer ${details.customerId}` }]);
    }
    const dateClosed = 'DateClosed' in values ? (values.DateClosed as string | null) : current.record.DateClosed;
    if (dateClosed === null) refuseDuplicate(data, details, id);
    const holding = data.bankAccounts.replace({ record: record(id, details, dateClosed), customerId: details.customerId, personId: details.personId });
    sendJson(res, 200, holding.record);
  };

  return new Map<string, Handler>([
    ['POSTbankaccounts/add', add],
    ['PUTbankaccounts/{bankaccountid}', update],
  ]);
}
