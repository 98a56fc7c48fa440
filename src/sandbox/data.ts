/**
 * The sandbox core's book: a deterministic, seeded UK credit union with members, their people
 * and addresses, share, savings and loan accounts with two years of transactions, bank
 * accounts, message threads, and the reference lists (banks, branches, products, ...).
 *
 * Reads only the seed; `createSandboxData(seed)` returns the same data for the same seed on any
 * machine. Money is built from integer pence and exact decimal arithmetic, never from floats.
 * The result is mutable in memory: the app's writes, and later the receipts ledger and bank
 * account writes, change it through the tables (see table.ts for the one rule).
 *
 * Everything is dated up to SANDBOX_AS_AT, the sandbox's fixed "now", so the data does not
 * depend on the day it is generated. Running balances, account balances, arrears and pledged
 * savings are computed from the generated transactions, so they agree with each other.
 */
import { AccountBook } from './account-book';
import { addDays, addMonths, businessMoment, daysBetween, fromIso, iso } from './calendar';
import { createReceiptTable, createSupervisorTable, type PostedReceipt, type Supervisor } from './receipt-records';
import { GENDERS, MemberFactory, TITLE, type Member, type Places } from './members';
import {
  EMPLOYER_FIELDS,
  MESSAGE_FIELDS,
  MESSAGE_THREAD_FIELDS,
  inSchemaOrder,
  type Account,
  type Address,
  type Bank,
  type BankAccount,
  type Branch,
  type CountryCode,
  type Customer,
  type Employer,
  type LoanProduct,
  type LoanReason,
  type Message,
  type MessageThread,
  type Person,
  type ProductShare,
  type Transaction,
  type ValueName,
} from './model';
import { PERIOD_NAMES, loanProductReasonLinks, loanProductRows, productShareRows } from './products';
import { SeededRandom } from './random';
import { Table } from './table';
import {
  BANK_NAMES,
  BRANCH_CITIES,
  BUILDING_NAMES,
  COUNTRIES,
  CURRENT_ACCOUNT_SORT_CODE_PREFIXES,
  EMPLOYER_NAMES,
  FEMALE_FORENAMES,
  LOAN_REASONS,
  MALE_FORENAMES,
  STAFF_USER_IDS,
  STREETS,
  SURNAMES,
  THREAD_SCRIPTS,
  TOWNS,
  internationalNumber,
  landlinePrefix,
  nationalNumberText,
  type Town,
} from './uk-reference';

export { ACCOUNT_STATUS, SANDBOX_ADDED_FIELDS } from './model';

/** The sandbox's "now": the generated history ends here. */
const SANDBOX_AS_AT = '2025-06-30T17:30:00';

/** A customer's bank account record and who holds it (the spec's record has no holder fields). */
export interface BankAccountHolding {
  readonly record: BankAccount;
  readonly customerId: number;
  /** The holder's person: its MemberId, as one person belongs to each customer. */
  readonly personId: number;
}

export interface SandboxData {
  readonly asAt: string;
  readonly accounts: Table<Account, 'customer'>;
  readonly addresses: Table<Address>;
  readonly banks: Table<Bank>;
  readonly bankAccounts: Table<BankAccountHolding, 'customer'>;
  readonly branches: Table<Branch>;
  readonly countryCodes: Table<CountryCode>;
  /** Keyed by Number, the member number. */
  readonly customers: Table<Customer>;
  readonly employers: Table<Employer>;
  readonly genders: Table<ValueName>;
  readonly titles: Table<ValueName>;
  readonly loanProducts: Table<LoanProduct>;
  readonly loanReasons: Table<LoanReason>;
  /** Loan product Id → the Ids of the loan reasons it may be taken out for. */
  readonly loanProductReasons: Map<number, number[]>;
  readonly loanRepaymentPeriods: Table<ValueName>;
  readonly messages: Table<Message, 'thread'>;
  readonly messageThreads: Table<MessageThread, 'customer'>;
  /** Keyed by MemberId: one person per customer. */
  readonly people: Table<Person>;
  /** Keyed by ProductId, which savings accounts' productId refers to. */
  readonly productShares: Table<ProductShare>;
  /** Keyed by ReceiptNumber, numbered in posting order across the whole core. */
  readonly transactions: Table<Transaction, 'account'>;
  /** Receipts posted by the receipt ledger, keyed by receipt number. */
  readonly receipts: Table<PostedReceipt, 'account'>;
  /** Who may authorise a receipt override; passwords held as hashes only. */
  readonly supervisors: Table<Supervisor>;
}

const CUSTOMER_COUNT = 250;
const FIRST_MEMBER_NUMBER = 10001;

export function createSandboxData(seed = 42): SandboxData {
  return new BookBuilder(seed).build();
}

class BookBuilder implements Places {
  private readonly rng: SeededRandom;
  private readonly asAt = fromIso(SANDBOX_AS_AT);
  private readonly addresses = new Table<Address>((a) => a.id, {});
  private readonly countryIdByCode = new Map<string, number>();

  constructor(seed: number) {
    this.rng = new SeededRandom(seed);
  }

  build(): SandboxData {
    const countryCodes = new Table<CountryCode>(
      (c) => c.Id,
      {},
      COUNTRIES.map(([Code, Country], i) => ({ Id: i + 1, Code, Country })),
    );
    for (const country of countryCodes.list()) this.countryIdByCode.set(country.Code, country.Id);
    const genders = new Table<ValueName>(
      (g) => g.Value,
      {},
      GENDERS.map(([Value, Name]) => ({ Value, Name })),
    );
    const titles = new Table<ValueName>(
      (t) => t.Value,
      {},
      Object.entries(TITLE).map(([Name, Value]) => ({ Value, Name })),
    );
    const loanRepaymentPeriods = new Table<ValueName>(
      (p) => p.Value,
      {},
      PERIOD_NAMES.map(([Value, Name]) => ({ Value, Name })),
    );

    const branches = new Table<Branch>((b) => b.Id, {}, this.branches());
    const banks = new Table<Bank>((b) => b.id, {}, this.banks());
    const employers = new Table<Employer>((e) => e.Id, {}, this.employers());
    const loanReasons = new Table<LoanReason>(
      (r) => r.Id,
      {},
      LOAN_REASONS.map(([Code, Description], i) => ({ Id: i + 1, Code, Description })),
    );
    const loanProducts = new Table<LoanProduct>((p) => p.Id, {}, loanProductRows());
    const productShares = new Table<ProductShare>((p) => p.ProductId, {}, productShareRows());

    const members = new MemberFactory(this.rng, this.asAt, this, employers.list()).members(CUSTOMER_COUNT, FIRST_MEMBER_NUMBER);
    const customers = new Table<Customer>(
      (c) => c.Number,
      {},
      members.map((m) => m.customer),
    );
    const people = new Table<Person>(
      (p) => p.MemberId,
      {},
      members.map((m) => m.person),
    );
    const book = new AccountBook(this.rng, this.asAt, productShares, loanProducts);
    for (const member of members) book.openAccounts(member);

    const accounts = new Table<Account, 'customer'>((a) => a.id, { customer: (a) => a.customerId }, book.accounts);
    const transactions = new Table<Transaction, 'account'>((t) => t.ReceiptNumber, { account: (t) => t.AccountId }, book.transactions());
    const bankAccounts = new Table<BankAccountHolding, 'customer'>((h) => h.record.Id, { customer: (h) => h.customerId }, this.bankAccounts(members));
    const { threads, messages } = this.messageThreads(members);

    return {
      asAt: SANDBOX_AS_AT,
      accounts,
      addresses: this.addresses,
      banks,
      bankAccounts,
      branches,
      countryCodes,
      customers,
      employers,
      genders,
      titles,
      loanProducts,
      loanReasons,
      loanProductReasons: loanProductReasonLinks(loanReasons.list()),
      loanRepaymentPeriods,
      messages: new Table<Message, 'thread'>((m) => m.Id, { thread: (m) => m.MessageThreadId }, messages),
      messageThreads: new Table<MessageThread, 'customer'>((t) => t.Id, { customer: (t) => t.CustomerId }, threads),
      people,
      productShares,
      transactions,
      receipts: createReceiptTable(),
      supervisors: createSupervisorTable(),
    };
  }

  newAddress(town: Town): Address {
    const { rng } = this;
    const street = rng.pick(STREETS);
    const flat = rng.chance(0.2);
    const address: Address = {
      id: this.addresses.nextKey(),
      countryId: this.countryId('GB'),
      address1: flat ? `Flat ${rng.int(1, 24)}, ${rng.pick(BUILDING_NAMES)}` : `${rng.int(1, 180)} ${street}`,
      address2: flat ? `${rng.int(1, 90)} ${street}` : '',
      address3: '',
      townCity: town.name,
      county: town.county,
      state: '',
      postalCode: this.postcode(town),
    };
    return this.addresses.insert(address);
  }

  private postcode(town: Town): string {
    const { rng } = this;
    const letters = 'ABDEFGHJLNPQRSTUWXYZ';
    return `${rng.pick(town.districts)} ${rng.int(1, 9)}${rng.pick([...letters])}${rng.pick([...letters])}`;
  }

  countryId(code: string): number {
    const id = this.countryIdByCode.get(code);
    if (id === undefined) throw new Error(`unknown country ${code}`);
    return id;
  }

  private townOfBranch(branchIndex: number): Town {
    const city = BRANCH_CITIES[branchIndex];
    const town = TOWNS.find((t) => t.branch === branchIndex && city !== undefined && t.name.startsWith(city.name));
    if (!town) throw new Error(`no town for branch ${branchIndex}`);
    return town;
  }

  private branches(): Branch[] {
    return BRANCH_CITIES.map((city, i) => ({
      Id: i + 1,
      AddressId: this.newAddress(this.townOfBranch(i)).id,
      Name: `${city.name} Branch`,
      Description: `${city.name} city centre branch: counter service, loan interviews and a 24-hour paying-in machine`,
      Code: `${city.code}01`,
      PhoneNumber: internationalNumber(`${city.dialPrefix}${String(100 + i).padStart(3, '0')}`),
      FaxNumber: internationalNumber(`${city.dialPrefix}${String(900 + i).padStart(3, '0')}`),
      Email: `${city.name.toLowerCase()}.branch@example.org`,
    }));
  }

  private banks(): Bank[] {
    return BANK_NAMES.map((name, i) => ({ addressId: this.newAddress(this.rng.pick(TOWNS)).id, name, id: i + 1 }));
  }

  private employers(): Employer[] {
    const { rng } = this;
    const heads: Employer[] = EMPLOYER_NAMES.map((name, i) => {
      const town = rng.pick(TOWNS);
      const employer: Employer = {
        Id: i + 1,
        CorrespondenceId: 7000 + i + 1,
        CompanyName: name,
        ContactName: `${rng.pick([...MALE_FORENAMES, ...FEMALE_FORENAMES])} ${rng.pick(SURNAMES)}`,
        PhoneNumber: nationalNumberText(`${landlinePrefix(town)}${rng.digits(3)}`),
        RegNumber: name.endsWith('LLP') ? `OC${rng.digits(6)}` : `0${rng.int(1, 9)}${rng.digits(6)}`,
        NumberOfEmployees: rng.weighted([
          [rng.int(5, 49), 4],
          [rng.int(50, 249), 4],
          [rng.int(250, 2500), 2],
        ]),
        Positions: rng.int(3, 40),
      };
      if (rng.chance(0.85)) employer.AddressId = this.newAddress(town).id;
      return inSchemaOrder(EMPLOYER_FIELDS, employer);
    });
    // A few employers have more than one site; a site names its head office in MainOfficeId.
    const sites = rng.sample(heads, 4).map((head, i) => {
      const town = rng.pick(TOWNS);
      return {
        Id: heads.length + i + 1,
        CorrespondenceId: head.CorrespondenceId,
        MainOfficeId: head.Id,
        AddressId: this.newAddress(town).id,
        CompanyName: `${head.CompanyName} (${town.name} site)`,
        ContactName: `${rng.pick([...MALE_FORENAMES, ...FEMALE_FORENAMES])} ${rng.pick(SURNAMES)}`,
        PhoneNumber: nationalNumberText(`${landlinePrefix(town)}${rng.digits(3)}`),
        RegNumber: head.RegNumber,
        NumberOfEmployees: rng.int(20, 300),
        Positions: rng.int(2, 20),
      } satisfies Employer;
    });
    return [...heads, ...sites];
  }

  private bankAccounts(members: readonly Member[]): BankAccountHolding[] {
    const { rng } = this;
    const holdings: BankAccountHolding[] = [];
    for (const member of members) {
      if (!rng.chance(0.4)) continue;
      const count = rng.chance(0.15) ? 2 : 1;
      for (let i = 0; i < count; i++) {
        const closed = rng.chance(0.15);
        const added = addDays(member.openDate, rng.int(0, Math.max(0, daysBetween(member.openDate, this.asAt) - 2)));
        holdings.push({
          record: {
            Id: holdings.length + 1,
            Name: `${member.person.Forename.charAt(0)} ${member.person.Surname}`.toUpperCase(),
            AccountNumber: rng.digits(8),
            DateClosed: closed ? iso(businessMoment(this.rng, addDays(added, rng.int(1, Math.max(1, daysBetween(added, this.asAt)))))) : null,
            SortCode: `${rng.pick(CURRENT_ACCOUNT_SORT_CODE_PREFIXES)}${rng.digits(4)}`,
          },
          customerId: member.customer.Number,
          personId: member.person.MemberId,
        });
      }
    }
    return holdings;
  }

  private messageThreads(members: readonly Member[]): { threads: MessageThread[]; messages: Message[] } {
    const { rng } = this;
    interface StagedMessage {
      readonly at: Date;
      readonly content: string;
      readonly fromCustomer: boolean;
      readonly staff: string;
      readonly legacy: boolean;
    }
    interface StagedThread {
      readonly customerId: number;
      readonly messageType: number;
      readonly subject: string;
      readonly opened: Date;
      readonly closedAt: Date | null;
      readonly legacy: boolean;
      readonly messages: StagedMessage[];
    }
    const staged: StagedThread[] = [];
    const recentStart = addMonths(this.asAt, -18);
    for (const member of members) {
      if (!rng.chance(0.45)) continue;
      const count = rng.chance(0.25) ? 2 : 1;
      for (let i = 0; i < count; i++) {
        const script = rng.pick(THREAD_SCRIPTS);
        const from = member.openDate > recentStart ? member.openDate : recentStart;
        const opened = businessMoment(this.rng, addDays(from, rng.int(1, Math.max(1, daysBetween(from, this.asAt) - 1))));
        const legacy = opened < addMonths(this.asAt, -12) && rng.chance(0.2);
        const staff = rng.pick(STAFF_USER_IDS);
        const messages: StagedMessage[] = [];
        let at = opened;
        for (const [index, content] of script.messages.entries()) {
          if (at > this.asAt) break;
          const fromCustomer = index % 2 === 0;
          messages.push({ at, content, fromCustomer, staff, legacy });
          // Staff answer in office hours within two days; members reply within hours.
          at = fromCustomer
            ? businessMoment(this.rng, addDays(at, rng.int(1, 2)))
            : new Date(at.getTime() + rng.int(1, 6) * 3_600_000 + rng.int(0, 3599) * 1000);
        }
        const last = messages[messages.length - 1]?.at ?? opened;
        const closedAt = daysBetween(last, this.asAt) > 14 && rng.chance(0.8) ? businessMoment(this.rng, addDays(last, rng.int(1, 7))) : null;
        staged.push({ customerId: member.customer.Number, messageType: script.messageType, subject: script.subject, opened, closedAt, legacy, messages });
      }
    }
    staged.sort((a, b) => a.opened.getTime() - b.opened.getTime());
    const threads: MessageThread[] = [];
    const stagedMessages: Array<{ threadId: number; message: StagedMessage }> = [];
    staged.forEach((thread, index) => {
      const row: MessageThread = { Id: index + 1, CustomerId: thread.customerId, MessageTypeId: thread.messageType, Subject: thread.subject };
      // Threads migrated from the old system carry neither their state nor their dates.
      if (!thread.legacy) {
        row.Closed = thread.closedAt !== null;
        row.OpenDate = iso(thread.opened);
        if (thread.closedAt) row.ClosedDate = iso(thread.closedAt);
      }
      threads.push(inSchemaOrder(MESSAGE_THREAD_FIELDS, row));
      for (const message of thread.messages) stagedMessages.push({ threadId: row.Id, message });
    });
    stagedMessages.sort((a, b) => a.message.at.getTime() - b.message.at.getTime());
    const messages = stagedMessages.map(({ threadId, message }, index) => {
      const row: Message = { Id: index + 1, MessageThreadId: threadId, Content: message.content, Date: iso(message.at) };
      if (!message.legacy) row.FromCustomer = message.fromCustomer;
      if (!message.fromCustomer) row.UserId = message.staff;
      return inSchemaOrder(MESSAGE_FIELDS, row);
    });
    return { threads, messages };
  }
}
