/**
 * The credit union's members: for each, a customer record, the person behind it (one person
 * per customer, under the same member number) and the address record both repeat.
 *
 * Reads the seeded random source and the places and employers already generated; returns
 * members with the facts account generation needs (when they joined, where they work).
 * Identifiers follow the real formats (National Insurance AB123456C, DVLA licence numbers)
 * without being anyone's; contact details use Ofcom drama ranges and example domains.
 */
import { addDays, atTime, daysBetween, fromIso, iso } from './calendar';
import { CUSTOMER_FIELDS, MARITAL_STATUS, inSchemaOrder, type Address, type Customer, type Employer, type Person } from './model';
import { money, ZERO } from './products';
import type { SeededRandom } from './random';
import {
  DRAMA_LANDLINE_PREFIX,
  DRAMA_MOBILE_PREFIX,
  EMAIL_DOMAINS,
  FEMALE_FORENAMES,
  MALE_FORENAMES,
  SURNAMES,
  TOWNS,
  asciiLower,
  internationalNumber,
  landlinePrefix,
  nationalNumberText,
  type Town,
} from './uk-reference';

const GENDER = { Male: 1, Female: 2, NonBinary: 3, NotStated: 4 } as const;
export const GENDERS: ReadonlyArray<readonly [number, string]> = [
  [GENDER.Male, 'Male'],
  [GENDER.Female, 'Female'],
  [GENDER.NonBinary, 'Non-binary'],
  [GENDER.NotStated, 'Not stated'],
];
export const TITLE = { Mr: 1, Mrs: 2, Miss: 3, Ms: 4, Dr: 5, Mx: 6, Rev: 7, Prof: 8 } as const;

export interface Member {
  readonly customer: Customer;
  readonly person: Person;
  readonly openDate: Date;
  /** Where the member works, if anywhere: payroll deductions name it. */
  readonly employerName: string | null;
}

/** Where new addresses come from: the sandbox's one addresses table. */
export interface Places {
  newAddress(town: Town): Address;
  countryId(code: string): number;
}

export class MemberFactory {
  constructor(
    private readonly rng: SeededRandom,
    private readonly asAt: Date,
    private readonly places: Places,
    private readonly employers: readonly Employer[],
  ) {}

  /** `count` members, numbered from `firstNumber` in order of joining. */
  members(count: number, firstNumber: number): Member[] {
    const { rng } = this;
    const earliest = fromIso('2006-01-01T00:00:00');
    // Member numbers rise with the date of joining, as the core issues them.
    const joinDates = Array.from({ length: count }, () => addDays(earliest, rng.int(0, daysBetween(earliest, addDays(this.asAt, -45))))).sort(
      (a, b) => a.getTime() - b.getTime(),
    );
    let number = firstNumber;
    return joinDates.map((joinDay) => {
      const member = this.member(number, joinDay);
      number += rng.weighted([
        [1, 6],
        [2, 2],
        [3, 1],
      ]);
      return member;
    });
  }

  private member(number: number, joinDay: Date): Member {
    const { rng } = this;
    const gender = rng.weighted<number>([
      [GENDER.Male, 47],
      [GENDER.Female, 50],
      [GENDER.NonBinary, 1.5],
      [GENDER.NotStated, 1.5],
    ]);
    const forename =
      gender === GENDER.Male
        ? rng.pick(MALE_FORENAMES)
        : gender === GENDER.Female
          ? rng.pick(FEMALE_FORENAMES)
          : rng.pick([...MALE_FORENAMES, ...FEMALE_FORENAMES]);
    const middleInitial = rng.chance(0.4) ? rng.pick([...MALE_FORENAMES, ...FEMALE_FORENAMES]).charAt(0) : '';
    const surname = rng.pick(SURNAMES);
    const title = this.title(gender);
    const titleName = Object.entries(TITLE).find(([, v]) => v === title)?.[0] ?? '';

    // Old enough to have joined at 16, and 18 or over today.
    const latestBirth = addDays(joinDay, -16 * 365 - 4);
    const earliestBirth = addDays(this.asAt, -86 * 365);
    const birthBound = addDays(this.asAt, -18 * 365 - 5);
    const latest = latestBirth < birthBound ? latestBirth : birthBound;
    const birth = addDays(earliestBirth, rng.int(0, Math.max(0, daysBetween(earliestBirth, latest))));
    const dateOfBirth = iso(atTime(birth, 0, 0));
    const age = Math.floor(daysBetween(birth, this.asAt) / 365.25);
    const openDate = atTime(joinDay, rng.int(9, 16), rng.int(0, 59), rng.int(0, 59));

    const town = rng.pick(TOWNS);
    const address = this.places.newAddress(town);
    const landline = `${landlinePrefix(town)}${rng.digits(3)}`;
    const mobile = `${DRAMA_MOBILE_PREFIX}${rng.digits(3)}`;
    const work = rng.chance(0.2) ? `${DRAMA_LANDLINE_PREFIX}${rng.digits(3)}` : null;
    const email = `${asciiLower(forename)}.${asciiLower(surname)}${rng.chance(0.5) ? rng.int(1, 99) : ''}@${rng.pick(EMAIL_DOMAINS)}`;
    const officer = rng.int(101, 118);
    const correspondenceName = `${titleName} ${forename.charAt(0)}${middleInitial ? ` ${middleInitial}` : ''} ${surname}`;

    const customer: Customer = {
      BranchId: town.branch + 1,
      Number: number,
      OrganisationOfficer: officer,
      Address1: address.address1,
      Address2: address.address2,
      Address3: address.address3,
      TownCity: address.townCity,
      State: address.state,
      PostalCode: address.postalCode,
      County: address.county,
      Country: 'United Kingdom',
      Name: `${forename} ${surname}`,
      CorrespondenceName: correspondenceName,
      DateOfBirth: dateOfBirth,
      Email: email,
      Telephone1: internationalNumber(landline),
      Telephone2: internationalNumber(mobile),
      SmsConsentGiven: rng.chance(0.65),
      OpenDate: iso(openDate),
    };
    if (work) customer.Telephone3 = internationalNumber(work);
    const orderedCustomer = inSchemaOrder(CUSTOMER_FIELDS, customer);

    const maritalStatus = this.maritalStatus(age);
    const partnered: readonly number[] = [MARITAL_STATUS.Married.value, MARITAL_STATUS.CivilPartnership.value, MARITAL_STATUS.Cohabiting.value];
    const hasPartner = partnered.includes(maritalStatus);
    const dependants =
      age < 60
        ? rng.weighted([
            [0, 5],
            [1, 2],
            [2, 2],
            [3, 1],
          ])
        : 0;
    const pensioner = age >= 66;
    const foreignResident = rng.chance(0.04);
    const employerName = !pensioner && rng.chance(0.6) ? rng.pick(this.employers).CompanyName : null;

    const person: Person = {
      MemberId: number,
      Forename: forename,
      Surname: surname,
      CorrespondenceName: correspondenceName,
      Email: email,
      SocialSecurityNumber: this.nationalInsuranceNumber(),
      DrivingLicenceNumber: rng.chance(0.75) ? this.drivingLicenceNumber(surname, forename, middleInitial, birth, gender) : '',
      Telephone1: nationalNumberText(landline),
      Telephone2: nationalNumberText(mobile),
      Telephone3: work ? nationalNumberText(work) : '',
      DebtOther: rng.chance(0.15) ? rng.pick(['Credit card £1,200', 'Catalogue £350', 'Car finance £4,800', 'Overdraft £600']) : '',
      DependantsAges: Array.from({ length: dependants }, () => rng.int(0, 17))
        .sort((a, b) => a - b)
        .join(', '),
      HealthDetails: rng.chance(0.08) ? rng.pick(['Type 2 diabetes, controlled', 'Asthma', 'Recovering from knee surgery']) : '',
      Title: title,
      Gender: gender,
      MaritalStatus: maritalStatus,
      OrganisationOfficer: officer,
      CreditRating: rng.weighted([
        [1, 3],
        [2, 4],
        [3, 3],
        [4, 1],
        [5, 1],
      ]),
      DependantsNumber: dependants,
      HealthGood: rng.chance(0.9) ? 1 : 0,
      CountryResidencyId: this.places.countryId(foreignResident ? 'IE' : 'GB'),
      TaxResidencyId: this.places.countryId(foreignResident ? 'IE' : 'GB'),
      DateOfBirth: dateOfBirth,
      MonthlyPension: pensioner ? money(rng.int(760, 1450), rng.int(0, 99)) : ZERO,
      ApprovedBenefits: rng.chance(0.15) ? money(rng.int(90, 900), rng.int(0, 99)) : ZERO,
      OtherIncome: rng.chance(0.1) ? money(rng.int(50, 600)) : ZERO,
      MonthlyPensionPartner: hasPartner && pensioner ? money(rng.int(700, 1300), rng.int(0, 99)) : ZERO,
      ApprovedBenefitsPartner: hasPartner && rng.chance(0.1) ? money(rng.int(90, 700), rng.int(0, 99)) : ZERO,
      OtherIncomePartner: hasPartner && rng.chance(0.05) ? money(rng.int(50, 400)) : ZERO,
      RelatedParty: rng.chance(0.02),
      CCJ: rng.chance(0.04),
      IVA: rng.chance(0.02),
      Bankruptcy: rng.chance(0.01),
      DRO: rng.chance(0.01),
      CircumstancesChange: rng.chance(0.05),
      MarketingPost: rng.chance(0.3),
      MarketingEmail: rng.chance(0.55),
      MarketingTelephone: rng.chance(0.15),
      MarketingText: customer.SmsConsentGiven && rng.chance(0.6),
    };
    return { customer: orderedCustomer, person, openDate, employerName };
  }

  private title(gender: number): number {
    const { rng } = this;
    if (gender === GENDER.Male)
      return rng.weighted<number>([
        [TITLE.Mr, 92],
        [TITLE.Dr, 5],
        [TITLE.Rev, 2],
        [TITLE.Prof, 1],
      ]);
    if (gender === GENDER.Female)
      return rng.weighted<number>([
        [TITLE.Mrs, 42],
        [TITLE.Miss, 25],
        [TITLE.Ms, 27],
        [TITLE.Dr, 6],
      ]);
    return rng.weighted<number>([
      [TITLE.Mx, 7],
      [TITLE.Ms, 1],
      [TITLE.Mr, 1],
    ]);
  }

  private maritalStatus(age: number): number {
    const m = MARITAL_STATUS;
    if (age < 25)
      return this.rng.weighted([
        [m.Single.value, 8],
        [m.Cohabiting.value, 2],
      ]);
    return this.rng.weighted([
      [m.Single.value, 3],
      [m.Married.value, 5],
      [m.CivilPartnership.value, 0.3],
      [m.Cohabiting.value, 1.5],
      [m.Separated.value, 0.5],
      [m.Divorced.value, 1.2],
      [m.Widowed.value, age > 60 ? 1.5 : 0.2],
    ]);
  }

  /** Format AB123456C, with the prefix and suffix letters HMRC allows. */
  private nationalInsuranceNumber(): string {
    const { rng } = this;
    const first = 'ABCEGHJKLMNOPRSTWXYZ';
    const second = 'ABCEGHJKLMNPRSTWXYZ';
    let prefix: string;
    do prefix = rng.pick([...first]) + rng.pick([...second]);
    while (['BG', 'GB', 'KN', 'NK', 'NT', 'TN', 'ZZ'].includes(prefix));
    return `${prefix}${rng.digits(6)}${rng.pick(['A', 'B', 'C', 'D'])}`;
  }

  /** The DVLA layout: surname, decade, month (+50 for women), day, year, initials, 9, check letters. */
  private drivingLicenceNumber(surname: string, forename: string, middleInitial: string, birth: Date, gender: number): string {
    const letters = surname.toUpperCase().replace(/[^A-Z]/g, '');
    const year = String(birth.getUTCFullYear());
    const month = birth.getUTCMonth() + 1 + (gender === GENDER.Female ? 50 : 0);
    const alphabet = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];
    return (
      letters.slice(0, 5).padEnd(5, '9') +
      year.charAt(2) +
      String(month).padStart(2, '0') +
      String(birth.getUTCDate()).padStart(2, '0') +
      year.charAt(3) +
      forename.charAt(0).toUpperCase() +
      (middleInitial || '9') +
      '9' +
      this.rng.pick(alphabet) +
      this.rng.pick(alphabet)
    );
  }
}
