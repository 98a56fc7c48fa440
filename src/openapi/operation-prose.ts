/**
 * The words of the vendor reference: each operation's summary and description, the tags a
 * vendor browses by, and the document's short opening, written from the spec's own sentences
 * (docs/spec/core-banking-integration-service.md) for a vendor's developer, not from the routes'
 * machine names.
 *
 * Reads a catalogue route (its method, path, API id and spec operations); sets nothing. The API id
 * (public contract) is named once in each description, because licences and user permissions name
 * it. Tag names stay the spec's path roots, except the receipts' root `api`, which says nothing to a
 * reader, and `messagethreads`, whose one path lists the messages of a `messagethread`.
 */
import type { Route } from '../catalogue/api-catalogue';
import { recordCasing } from './resource-schemas';

/** How the reference names one resource root's records, and the spec's sentence about them. */
interface Resource {
  readonly one: string;
  readonly many: string;
  /** What the spec says the records are; '' where it says nothing beyond their fields. */
  readonly about: string;
}

const RESOURCES: Readonly<Record<string, Resource>> = {
  accounts: { one: 'account', many: 'accounts', about: 'A customer account (savings or loan); it may have a parent product.' },
  addresses: { one: 'address', many: 'addresses', about: 'A customer address, associated with customers.' },
  banks: { one: 'bank', many: 'banks', about: '' },
  branches: { one: 'branch', many: 'branches', about: "The physical location of a customer's bank." },
  countrycodes: { one: 'country code', many: 'country codes', about: 'Short alphabetic country codes.' },
  customers: { one: 'customer', many: 'customers', about: 'A customer (member): people and branches are associated with a customer.' },
  employers: { one: 'employer', many: 'employers', about: 'The employer a person is associated with.' },
  genders: { one: 'gender', many: 'genders', about: 'A reference list: each gender is a Value and a Name.' },
  loanproducts: { one: 'loan product', many: 'loan products', about: 'The loan products: rates, terms, age and amount limits.' },
  loanreasons: { one: 'loan reason', many: 'loan reasons', about: 'The reasons a loan can be taken for.' },
  loanrepaymentperiods: { one: 'loan repayment period', many: 'loan repayment periods', about: 'A reference list: each period is a Value and a Name.' },
  messages: { one: 'message', many: 'messages', about: "Messages in a customer's inbox." },
  messagethread: { one: 'message thread', many: 'message threads', about: 'Messages on one topic.' },
  people: { one: 'person', many: 'people', about: 'Personal details from the join form.' },
  productshares: { one: 'product share', many: 'product shares', about: 'The description of a product share (a savings product).' },
  titles: { one: 'title', many: 'titles', about: 'Titles are name prefixes associated with people.' },
  transactions: { one: 'transaction', many: 'transactions', about: "A customer's history of transactions on accounts." },
};

const article = (noun: string): string => (/^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`);

/** The spec's additional GET paths: what each returns, in the spec's words. */
const ADDITIONAL: Readonly<Record<string, readonly [summary: string, description: string]>> = {
  'accounts/{accountId}/transactions': ["List an account's transactions", 'The transactions of one account, by its id.'],
  'branches/{branchId}/address': ["Get a branch's address", 'The address of one branch.'],
  'customers/{memberId}/accounts': ["List a customer's accounts", "The customer's accounts, savings and loans."],
  'customers/{memberId}/historicalaccounts': ["List a customer's historical accounts", "The customer's historical accounts."],
  'customers/{memberId}/bankaccounts': [
    "List a customer's bank accounts",
    "The customer's accounts at other banks; DateClosed null means open. Add one with POST /bankaccounts/add.",
  ],
  'customers/{memberId}/productshares': ["List a customer's product shares", 'The product shares the customer holds.'],
  'customers/{memberId}/messagethreads': ["List a customer's message threads", "The message threads of the customer's inbox."],
  'customers/{memberId}/marketingpreferences': ["Get a customer's marketing preferences", "The customer's marketing choices and SMS consent."],
  'customers/{memberId}/totalpledgedsavings': ["Get a customer's total pledged savings", "The savings locked against the customer's loans."],
  'loanproducts/{id}/reasons': ["List a loan product's reasons", 'The loan reasons of one loan product.'],
  'messagethreads/{id}/messages': ["List a thread's messages", 'The messages of one message thread.'],
  'transactions/{memberId}/batchstatement': [
    "Get a member's batch statement",
    "A member's statement: every account with activity in the period (from, to), and every open account.",
  ],
  'transactions/{memberId}/between': [
    "List a member's transactions between two dates",
    "The member's transactions between two points in time (from, to; either may be left open).",
  ],
};

const BANK_ACCOUNTS: Readonly<Record<string, readonly [summary: string, description: string]>> = {
  'POST bankaccounts/verification': [
    'Send a verification code by SMS',
    "Step 1 of adding a bank account: sends a 6-digit code by SMS to the customer's UK mobile number (the gateway sends it; the core never sees " +
      'this call). The customer reads the code to you; step 2, POST /bankaccounts/add, takes it as TwoFactorCode.',
  ],
  'POST bankaccounts/add': [
    'Add a bank account',
    'Step 2: adds a bank account at another bank to a customer, with the code the customer received by SMS (TwoFactorCode, from POST ' +
      '/bankaccounts/verification). Answers the bank account record. Guarded as money movement: send an Idempotency-Key, and a retry with the same key replays the first answer.',
  ],
  'GET bankaccounts/{id}': ['Get a bank account', "One of a customer's bank accounts at another bank, by its id; DateClosed null means open."],
  'PUT bankaccounts/{bankaccountid}': [
    'Update or close a bank account',
    "Changes a customer's bank account; a non-null DateClosed marks it inactive (closed). Answers the record as it now stands.",
  ],
};

const RECEIPTS: Readonly<Record<string, readonly [summary: string, description: string]>> = {
  'api/transaction/savings/deposit': ['Post a savings deposit', 'A deposit in a savings account (body and answer: ReceiptPaymentDto).'],
  'api/transaction/savings/payment': [
    'Post a savings payment',
    'A deposit on a savings account with the full receipt: lines, fees, analysis links, surveys (body and answer: ReceiptSavingsDepositWebDto).',
  ],
  'api/transaction/loan/reversal': [
    'Reverse a loan issue',
    'Reverses an account transaction on a loan, e.g. cancels an issued loan (body and answer: ReceiptReversalWebDto).',
  ],
};

const RECEIPT_RULES =
  'Answers 201 with the created receipt. A receipt that needs an override answers 422 with hasOverride true and transactionOverrides; ' +
  'send it again with OverrideUserName and OverridePassword of the authorising user. Invalid input answers 400 with the receipt and its errorMessage. ' +
  'Money moves once: send an Idempotency-Key (or an ExternalRefNo) and retry with the same one; see "Money movement and idempotency" above. ' +
  'JSON or XML, in and out (see "XML for .NET clients").';

const WRITE_NOTE =
  'The spec describes every resource as read-only yet lists this operation: a core may refuse it, and a key needs a licence for it ' +
  '(the sandbox demo key has none).';

const UNPAGED_NOTE =
  'Without paged=true the answer is every record, however many: ask for paged=true with page and pageSize to read a long list a page at a time.';

/** Where an unpaged list is known to be large: the sandbox's accounts. */
const UNPAGED_SIZE: Readonly<Record<string, string>> = {
  accounts: ' (on the sandbox, GET /accounts answers every one of its hundreds of accounts, over 400 KB)',
};

/** The summary (a few words, a verb first) and the description of a resource operation. */
function resourceProse(route: Route, resource: Resource): [string, string] {
  const hasId = route.segments.length === 2;
  const id = hasId ? (route.segments[1] as string).slice(1, -1) : '';
  const root = route.segments[0] as string;
  const about = resource.about ? ` ${resource.about}` : '';
  if (root === 'transactions' && hasId) {
    if (route.method === 'GET') return ["List a member's transactions", `Every transaction of one member (${id}), on all their accounts.${about}`];
    return [
      `${route.method === 'PUT' ? 'Replace' : 'Erase'} a member's transaction history`,
      `Would ${route.method === 'PUT' ? 'replace' : 'erase'} a member's whole history: the sandbox answers 405 with Allow (a line is added by POST /transactions or by a receipt). Listed for a core that implements it. ${WRITE_NOTE}`,
    ];
  }
  switch (route.method) {
    case 'GET':
      if (hasId) return [`Get ${article(resource.one)}`, `One ${resource.one}, by its ${id}.${about}`];
      if (root === 'banks') return ['List banks', `The banks, always one page of the paged envelope (page and pageSize choose which).${about}`];
      return [
        `List ${resource.many}`,
        `Every ${resource.one} (the spec's ALL), or, with sort and ascending, sorted, and with paged=true one page of them (SEARCH).${about} ${UNPAGED_NOTE}${UNPAGED_SIZE[root] ?? ''}`,
      ];
    case 'POST':
      return [
        `Create ${article(resource.one)}`,
        `Creates ${article(resource.one)}; answers 201 with the record as stored and its Location.${about} ${WRITE_NOTE}`,
      ];
    case 'PUT':
      return [`Update ${article(resource.one)}`, `Changes one ${resource.one}, by its ${id}; answers the record as it now stands.${about} ${WRITE_NOTE}`];
    default:
      return [`Delete ${article(resource.one)}`, `Deletes one ${resource.one}, by its ${id}; answers 204.${about} ${WRITE_NOTE}`];
  }
}

/** The operation's summary and description; the description ends with its API id. */
export function operationProse(route: Route): { summary: string; description: string } {
  const root = route.segments[0] as string;
  const resource = RESOURCES[root];
  const [summary, text] =
    RECEIPTS[route.path] ??
    BANK_ACCOUNTS[`${route.method} ${route.path}`] ??
    ADDITIONAL[route.path] ??
    (resource ? resourceProse(route, resource) : [`${route.method} /${route.path}`, '']);
  const rules = route.group === 'receipts' ? ` ${RECEIPT_RULES}` : '';
  return { summary, description: `${text}${rules}\n\nAPI id: \`${route.apiId}\` (licences and user permissions name it).` };
}

/** The tag an operation is listed under. */
export function tagOf(route: Route): string {
  const root = route.operations[0]?.resource ?? (route.segments[0] as string);
  if (root === 'api') return 'receipts';
  if (root === 'messagethreads') return 'messagethread';
  return root;
}

/** The tags in the order a vendor meets them: a first call, money, bank accounts, then the rest of the records and the reference lists. */
const TAGS: ReadonlyArray<readonly [name: string, description: string]> = [
  ['accounts', "Customers' savings and loan accounts: balances, locked funds, loan arrears, and each account's transactions."],
  ['receipts', 'Money movement: savings deposits, savings payments and loan reversals, in JSON or XML. Send an Idempotency-Key with each.'],
  ['bankaccounts', "A customer's accounts at other banks: send an SMS code, add an account with it, read and close one."],
  ['customers', 'Customers (members) and what hangs off them: accounts, bank accounts, product shares, message threads, preferences.'],
  ['transactions', "A member's transaction history, a batch statement and the transactions between two dates."],
  ['people', 'Personal details from the join form.'],
  ['addresses', 'Customer addresses.'],
  ['banks', 'The banks, always paged.'],
  ['branches', "The branches (physical locations) and each branch's address."],
  ['employers', 'The employers people are associated with.'],
  ['loanproducts', "Loan products and each product's loan reasons."],
  ['loanreasons', 'The reasons a loan can be taken for.'],
  ['loanrepaymentperiods', 'Reference list: loan repayment periods.'],
  ['productshares', 'Savings products (product shares): rates, limits, terms.'],
  ['messagethread', "Message threads of customers' inboxes and the messages of each thread."],
  ['messages', "Messages in customers' inboxes."],
  ['countrycodes', 'Reference list: country codes.'],
  ['genders', 'Reference list: genders.'],
  ['titles', 'Reference list: name prefixes (titles).'],
];

/** A record tag's description says how its records' fields are written, as the spec's field tables give them. */
function withCasing(name: string, description: string): string {
  const casing = recordCasing(name);
  return casing ? `${description} Fields are ${casing}.` : description;
}

/** The document's tags for the tag names its operations use, in TAGS order (any other after them, by name). */
export function documentTags(used: ReadonlySet<string>): Array<{ name: string; description: string }> {
  const known = TAGS.filter(([name]) => used.has(name)).map(([name, description]) => ({ name, description: withCasing(name, description) }));
  const others = [...used].filter((name) => !TAGS.some(([known]) => known === name)).sort();
  return [...known, ...others.map((name) => ({ name, description: `The /${name} paths` }))];
}

/** The document's opening: four short sections a vendor reads before a first call, each pointing on to where the detail is. */
export function infoDescription(tokenHeader: string): string {
  return [
    'The Core Banking Integration Service, served by the gateway: customer accounts, customers and their records, bank accounts with SMS verification, ' +
      'and three money-moving receipts. Every answer is JSON (receipts: JSON or XML); every error is an RFC 9457 problem with a `code` and a `requestId` to quote.',
    '',
    'Start here: [Get a sandbox key](#get-a-sandbox-key) · [Your first call](#your-first-call) · ' +
      '[Money movement and idempotency](#money-movement-and-idempotency) · [XML for .NET clients](#xml-for-net-clients). ' +
      'The vendor guide (`docs/vendor-guide.md` in the gateway repository) has the whole day-one path.',
    '',
    '<h2 id="get-a-sandbox-key">Get a sandbox key</h2>',
    '',
    `Every call sends a key in the \`${tokenHeader}\` header. Against the sandbox (\`npm start\`), use the demo key from the README's *Try it* table ` +
      '(`README.md`): it may make every read, receipt and bank-account call. For production the bank issues your key (`cbk_…`, shown once) and ' +
      'licenses the API ids you need; each operation below names its API id.',
    '',
    '<h2 id="your-first-call">Your first call</h2>',
    '',
    `Press **Authorize**, paste the key, then open **accounts › List accounts** and **Try it out** with \`paged=true\` — or: ` +
      `\`curl -H "${tokenHeader}: $KEY" "$BASE/accounts?paged=true&pageSize=5"\`. ` +
      'Lists without `paged=true` answer every record. Field names are case-sensitive and follow the spec: camelCase for accounts, addresses, banks ' +
      'and receipts; PascalCase for customers, people, bank accounts, transactions and the other records (each schema says which).',
    '',
    '<h2 id="money-movement-and-idempotency">Money movement and idempotency</h2>',
    '',
    'The receipts (**receipts** below) and adding a bank account move money or commit it. Send an `Idempotency-Key` header, unique per intended ' +
      'posting, and retry with the same key: the first answer is replayed for 24 h (`Idempotent-Replayed: true`), the money moves once. ' +
      'Without a key the `ExternalRefNo` serves; outside the sandbox a call with neither is refused (400). A 409 `outcome_unknown`, a 502 or a 504 ' +
      'means the core may have posted: check the account before posting again.',
    '',
    '<h2 id="xml-for-net-clients">XML for .NET clients</h2>',
    '',
    'Receipts take and answer `application/xml` and `text/xml` as DataContractSerializer writes them: one schema per .NET DTO serves JSON and XML, ' +
      'with the XML names in its `xml` objects (PascalCase), enums as names (`x-enumNames`), amounts as exact decimals. The answer comes in your ' +
      "request's namespace, members in DataContract order. Details: the DTO schemas below, and the vendor guide's *Receipts (money movement)* section.",
  ].join('\n');
}
