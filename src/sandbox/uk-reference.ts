/**
 * Hand-written UK reference lists the sandbox data is drawn from (names, streets, towns with
 * their counties, postcode districts and telephone ranges, banks, employers, countries, loan
 * reasons, message wording) and the ways UK telephone numbers are written.
 *
 * Reads nothing. Telephone numbers use only Ofcom's ranges reserved for drama (01632 960xxx,
 * 0113 496 0xxx, 07700 900xxx, ...), e-mail addresses only the reserved example domains, so no
 * generated contact detail reaches a real person. Bank names are real; every account number,
 * sort code and address attached to them is made up.
 */
import { MESSAGE_TYPE } from './model';

// The tables below keep their rows as laid out, to be read as tables.
// prettier-ignore
export const MALE_FORENAMES = [
  'James', 'John', 'David', 'Michael', 'Paul', 'Andrew', 'Mark', 'Richard', 'Peter', 'Stephen',
  'Christopher', 'Robert', 'Daniel', 'Thomas', 'Matthew', 'Gary', 'Ian', 'Kevin', 'Simon', 'Graham',
  'Anthony', 'Lee', 'Craig', 'Stuart', 'Neil', 'Darren', 'Adam', 'Jamie', 'Ryan', 'Liam',
  'Oliver', 'Harry', 'Jack', 'George', 'Charlie', 'Samuel', 'Joshua', 'Callum', 'Connor', 'Kieran',
  'Mohammed', 'Imran', 'Tariq', 'Rajesh', 'Sanjay', 'Arjun', 'Tomasz', 'Piotr', 'Kwame', 'Chinedu',
  'Brian', 'Keith', 'Trevor', 'Derek', 'Alan', 'Colin', 'Barry', 'Martin', 'Philip', 'Nigel',
] as const;

// prettier-ignore
export const FEMALE_FORENAMES = [
  'Sarah', 'Emma', 'Claire', 'Helen', 'Rachel', 'Nicola', 'Lisa', 'Karen', 'Joanne', 'Michelle',
  'Susan', 'Julie', 'Amanda', 'Louise', 'Rebecca', 'Laura', 'Hannah', 'Jessica', 'Sophie', 'Charlotte',
  'Emily', 'Amy', 'Lauren', 'Chloe', 'Megan', 'Olivia', 'Grace', 'Ellie', 'Lucy', 'Katie',
  'Margaret', 'Patricia', 'Linda', 'Elizabeth', 'Jean', 'Carol', 'Sandra', 'Christine', 'Pauline', 'Janet',
  'Aisha', 'Fatima', 'Priya', 'Anjali', 'Nadia', 'Zainab', 'Agnieszka', 'Katarzyna', 'Ama', 'Ngozi',
  'Siobhan', 'Bethan', 'Kirsty', 'Gemma', 'Stacey', 'Donna', 'Tracey', 'Dawn', 'Angela', 'Natalie',
] as const;

// prettier-ignore
export const SURNAMES = [
  'Smith', 'Jones', 'Taylor', 'Brown', 'Williams', 'Wilson', 'Johnson', 'Davies', 'Robinson', 'Wright',
  'Thompson', 'Evans', 'Walker', 'White', 'Roberts', 'Green', 'Hall', 'Wood', 'Jackson', 'Clarke',
  'Patel', 'Khan', 'Lewis', 'Harrison', 'Scott', 'Turner', 'Hill', 'Moore', 'Cooper', 'Ward',
  'Morris', 'King', 'Watson', 'Baker', 'Harris', 'Clark', 'Young', 'Allen', 'Mitchell', 'Anderson',
  'Carter', 'Phillips', 'Shaw', 'Lee', 'Martin', 'Parker', 'Bennett', 'Edwards', 'Hughes', 'Hussain',
  'Ahmed', 'Ali', 'Begum', 'Singh', 'Kaur', 'Shah', 'Chowdhury', 'Akhtar', 'Iqbal', 'Mahmood',
  'Murphy', "O'Brien", 'Kelly', 'Byrne', 'Doyle', 'McDonald', 'Campbell', 'Stewart', 'Reid', 'Fraser',
  'Kowalski', 'Nowak', 'Wisniewski', 'Okafor', 'Mensah', 'Adeyemi', 'Owusu', 'Nguyen', 'Chen', 'Wong',
  'Holmes', 'Marshall', 'Barker', 'Pearson', 'Fletcher', 'Atkinson', 'Dixon', 'Gibson', 'Knight', 'Hunt',
  'Booth', 'Sutcliffe', 'Ackroyd', 'Greenwood', 'Ramsden', 'Hargreaves', 'Whitaker', 'Brooke', 'Haigh', 'Lister',
  'Bradley', 'Dawson', 'Hudson', 'Lawson', 'Mason', 'Nicholson', 'Rhodes', 'Simpson', 'Wade', 'Yates',
  'Armitage', 'Bairstow', 'Crowther', 'Firth', 'Hanson', 'Illingworth', 'Jowett', 'Pickles', 'Sugden', 'Thornton',
] as const;

// prettier-ignore
export const STREETS = [
  'Victoria Road', 'Church Lane', 'Station Road', 'Park Avenue', 'Mill Lane', 'Manor Road', 'Queen Street',
  'High Street', 'Albert Terrace', 'Beech Grove', 'Oak Avenue', 'Chestnut Close', 'Springfield Road',
  'The Crescent', 'Kings Road', 'Grange Road', 'Westfield Lane', 'Moorland View', 'Hollin Lane', 'Cliff Road',
  'North Street', 'South Parade', 'Bridge Street', 'Canal Street', 'Green Lane', 'Meadow Way', 'Elm Tree Close',
  'Woodland Drive', 'Highfield Road', 'Windsor Avenue', 'Cavendish Street', 'Albion Street', 'Fountain Street',
  'St Mary\'s Road', 'St John\'s Close', 'Hawthorn Drive', 'Rowan Way', 'Larch Grove', 'Sycamore Avenue',
  'Priory Road', 'Abbey Walk', 'Marlborough Gardens', 'Belgrave Street', 'Clarendon Road', 'Hyde Park Road',
  'Harehills Lane', 'Burley Road', 'Kirkstall Road', 'Town Street', 'Back Lane', 'Well Lane', 'Spen Lane',
  'Carr Lane', 'Ings Road', 'Brook Street', 'Poplar Avenue', 'Laburnum Street', 'Willow Crescent',
  'Coronation Street', 'Jubilee Way',
] as const;

// prettier-ignore
export const BUILDING_NAMES = [
  'Albion Court', 'Victoria House', 'Regent Mews', 'Wellington Court', 'Mill House', 'St James Court',
  'Parkside', 'The Maltings', 'Kingsway House', 'Waterside Apartments', 'Canal Wharf', 'Brewery Yard',
] as const;

interface BranchCity {
  readonly name: string;
  readonly code: string;
  /** National number prefix of the city's drama range; three more digits make a number. */
  readonly dialPrefix: string;
}

/** The credit union's ten branches, each in a city that has an Ofcom drama telephone range. */
// prettier-ignore
export const BRANCH_CITIES: readonly BranchCity[] = [
  { name: 'Leeds', code: 'LDS', dialPrefix: '01134960' },
  { name: 'Sheffield', code: 'SHF', dialPrefix: '01144960' },
  { name: 'Nottingham', code: 'NTM', dialPrefix: '01154960' },
  { name: 'Leicester', code: 'LEI', dialPrefix: '01164960' },
  { name: 'Bristol', code: 'BRS', dialPrefix: '01174960' },
  { name: 'Birmingham', code: 'BHM', dialPrefix: '01214960' },
  { name: 'Liverpool', code: 'LPL', dialPrefix: '01514960' },
  { name: 'Manchester', code: 'MAN', dialPrefix: '01614960' },
  { name: 'Newcastle', code: 'NCL', dialPrefix: '01914980' },
  { name: 'London', code: 'LDN', dialPrefix: '02079460' },
];

export interface Town {
  readonly name: string;
  readonly county: string;
  readonly districts: readonly string[];
  /** Index into BRANCH_CITIES of the branch its members join. */
  readonly branch: number;
}

// prettier-ignore
export const TOWNS: readonly Town[] = [
  { name: 'Leeds', county: 'West Yorkshire', districts: ['LS1', 'LS2', 'LS4', 'LS6', 'LS7', 'LS8', 'LS11', 'LS12', 'LS15', 'LS17'], branch: 0 },
  { name: 'Bradford', county: 'West Yorkshire', districts: ['BD1', 'BD3', 'BD5', 'BD8', 'BD9'], branch: 0 },
  { name: 'Wakefield', county: 'West Yorkshire', districts: ['WF1', 'WF2', 'WF4'], branch: 0 },
  { name: 'Harrogate', county: 'North Yorkshire', districts: ['HG1', 'HG2', 'HG3'], branch: 0 },
  { name: 'Sheffield', county: 'South Yorkshire', districts: ['S1', 'S2', 'S6', 'S7', 'S10', 'S11'], branch: 1 },
  { name: 'Rotherham', county: 'South Yorkshire', districts: ['S60', 'S61', 'S65'], branch: 1 },
  { name: 'Barnsley', county: 'South Yorkshire', districts: ['S70', 'S71', 'S75'], branch: 1 },
  { name: 'Doncaster', county: 'South Yorkshire', districts: ['DN1', 'DN2', 'DN4'], branch: 1 },
  { name: 'Nottingham', county: 'Nottinghamshire', districts: ['NG1', 'NG3', 'NG5', 'NG7', 'NG9'], branch: 2 },
  { name: 'Mansfield', county: 'Nottinghamshire', districts: ['NG18', 'NG19'], branch: 2 },
  { name: 'Derby', county: 'Derbyshire', districts: ['DE1', 'DE22', 'DE23', 'DE24'], branch: 2 },
  { name: 'Leicester', county: 'Leicestershire', districts: ['LE1', 'LE2', 'LE3', 'LE4', 'LE5'], branch: 3 },
  { name: 'Loughborough', county: 'Leicestershire', districts: ['LE11'], branch: 3 },
  { name: 'Bristol', county: 'Bristol', districts: ['BS1', 'BS3', 'BS5', 'BS6', 'BS7', 'BS16'], branch: 4 },
  { name: 'Bath', county: 'Somerset', districts: ['BA1', 'BA2'], branch: 4 },
  { name: 'Birmingham', county: 'West Midlands', districts: ['B5', 'B11', 'B13', 'B17', 'B23', 'B29'], branch: 5 },
  { name: 'Wolverhampton', county: 'West Midlands', districts: ['WV1', 'WV3', 'WV6'], branch: 5 },
  { name: 'Coventry', county: 'West Midlands', districts: ['CV1', 'CV2', 'CV5', 'CV6'], branch: 5 },
  { name: 'Liverpool', county: 'Merseyside', districts: ['L1', 'L4', 'L8', 'L15', 'L18', 'L25'], branch: 6 },
  { name: 'Birkenhead', county: 'Merseyside', districts: ['CH41', 'CH42', 'CH43'], branch: 6 },
  { name: 'St Helens', county: 'Merseyside', districts: ['WA9', 'WA10', 'WA11'], branch: 6 },
  { name: 'Manchester', county: 'Greater Manchester', districts: ['M1', 'M4', 'M13', 'M14', 'M20', 'M21'], branch: 7 },
  { name: 'Salford', county: 'Greater Manchester', districts: ['M5', 'M6', 'M7'], branch: 7 },
  { name: 'Stockport', county: 'Greater Manchester', districts: ['SK1', 'SK2', 'SK4'], branch: 7 },
  { name: 'Bolton', county: 'Greater Manchester', districts: ['BL1', 'BL2', 'BL3'], branch: 7 },
  { name: 'Newcastle upon Tyne', county: 'Tyne and Wear', districts: ['NE1', 'NE2', 'NE4', 'NE6'], branch: 8 },
  { name: 'Gateshead', county: 'Tyne and Wear', districts: ['NE8', 'NE9', 'NE10'], branch: 8 },
  { name: 'Sunderland', county: 'Tyne and Wear', districts: ['SR1', 'SR2', 'SR4'], branch: 8 },
  { name: 'London', county: 'Greater London', districts: ['E1', 'E8', 'N1', 'N7', 'SE1', 'SE15', 'SW2', 'SW11', 'W3', 'NW5'], branch: 9 },
  { name: 'Croydon', county: 'Greater London', districts: ['CR0'], branch: 9 },
];

/** Landlines outside the branch cities use the national drama range 01632 960xxx. */
export const DRAMA_LANDLINE_PREFIX = '01632960';
export const DRAMA_MOBILE_PREFIX = '07700900';
export const EMAIL_DOMAINS = ['example.com', 'example.net', 'example.org'] as const;

/** ISO 3166-1 alpha-2 codes and names; the United Kingdom first, as the core lists it. */
// prettier-ignore
export const COUNTRIES: ReadonlyArray<readonly [code: string, name: string]> = [
  ['GB', 'United Kingdom'], ['IE', 'Ireland'], ['FR', 'France'], ['DE', 'Germany'], ['ES', 'Spain'],
  ['PT', 'Portugal'], ['IT', 'Italy'], ['NL', 'Netherlands'], ['BE', 'Belgium'], ['PL', 'Poland'],
  ['RO', 'Romania'], ['LT', 'Lithuania'], ['LV', 'Latvia'], ['BG', 'Bulgaria'], ['GR', 'Greece'],
  ['SE', 'Sweden'], ['DK', 'Denmark'], ['NO', 'Norway'], ['CH', 'Switzerland'], ['US', 'United States'],
  ['CA', 'Canada'], ['AU', 'Australia'], ['NZ', 'New Zealand'], ['IN', 'India'], ['PK', 'Pakistan'],
  ['BD', 'Bangladesh'], ['NG', 'Nigeria'], ['GH', 'Ghana'], ['ZA', 'South Africa'], ['JM', 'Jamaica'],
  ['PH', 'Philippines'], ['CN', 'China'],
];

/** UK banks and building societies. */
// prettier-ignore
export const BANK_NAMES = [
  'Barclays Bank UK PLC', 'HSBC UK Bank plc', 'Lloyds Bank plc', 'National Westminster Bank plc',
  'Santander UK plc', 'Nationwide Building Society', 'The Royal Bank of Scotland plc', 'Bank of Scotland plc',
  'Halifax', 'TSB Bank plc', 'The Co-operative Bank p.l.c.', 'Metro Bank PLC', 'Virgin Money UK PLC',
  'Monzo Bank Limited', 'Starling Bank Limited', 'Revolut Ltd', 'Chase UK', 'first direct',
  'Ulster Bank Limited', 'Danske Bank', 'Bank of Ireland (UK) plc', 'AIB Group (UK) p.l.c.', 'Coutts & Co',
  'C. Hoare & Co.', 'Handelsbanken plc', 'Triodos Bank UK Limited', 'Unity Trust Bank plc',
  'Yorkshire Building Society', 'Coventry Building Society', 'Skipton Building Society',
  'Leeds Building Society', 'Principality Building Society', 'West Bromwich Building Society',
  'Nottingham Building Society', 'Newcastle Building Society', 'Cumberland Building Society',
  'Progressive Building Society', 'Furness Building Society', 'Cynergy Bank Limited', 'Atom bank plc',
  'Tesco Bank', "Sainsbury's Bank plc", 'M&S Bank', 'Allica Bank Limited', 'OakNorth Bank plc',
  'Shawbrook Bank Limited', 'Aldermore Bank PLC', 'Paragon Bank PLC', 'Close Brothers Limited',
  'Investec Bank plc', 'Arbuthnot Latham & Co., Limited', 'Weatherbys Bank Limited', 'Cater Allen Limited',
  'Kent Reliance', 'Hampshire Trust Bank Plc', 'Zopa Bank Limited', 'Chorley Building Society',
] as const;

/** Sort-code prefixes of the banks members most often hold their current account with. */
export const CURRENT_ACCOUNT_SORT_CODE_PREFIXES = ['20', '30', '40', '60', '09', '07', '11', '04', '77', '08'] as const;

// prettier-ignore
export const EMPLOYER_NAMES = [
  'Airedale Engineering Ltd', 'Pennine Care Homes Ltd', 'Northgate Logistics Ltd', 'Calder Valley Foods Ltd',
  'Aire Street Dental Practice', 'Whitecross Print & Packaging Ltd', 'Holbeck Textiles Ltd',
  'Kirkgate Market Traders Co-operative', 'Wharfedale Bus Company Ltd', 'Moorside Academy Trust',
  'Bramley Builders Merchants Ltd', 'Trent Valley Distribution Ltd', 'Sherwood Contract Cleaning Ltd',
  'Soar Valley Hosiery Ltd', 'Avonmouth Freight Services Ltd', 'Severn Bridge Catering Ltd',
  'Digbeth Metal Finishers Ltd', 'Black Country Plastics Ltd', 'Mersey Ferries Maintenance Ltd',
  'Anfield Community Housing Association', 'Pennine Water Services Ltd', 'Irwell Security Services Ltd',
  'Salford Quays Hospitality Ltd', 'Tyne Marine Engineering Ltd', 'Wearside Call Centres Ltd',
  'Gateshead Home Care Ltd', 'Thames Gateway Couriers Ltd', 'Southwark Community Pharmacy Ltd',
  'Hackney Green Grocers Ltd', 'Dales Veterinary Group Ltd', 'Don Valley Steel Fabrications Ltd',
  'Rother Valley Nurseries Ltd', 'Mansfield Brewery Workers Club Ltd', 'Derwent Rail Services Ltd',
  'Lace Market Architects LLP', 'Clifton Lettings Ltd', 'Coventry Motor Components Ltd',
  'Stockport Hatters Catering Ltd', 'Bolton Mill Furnishings Ltd', 'Croydon Tram Services Ltd',
] as const;

/** [code, description]; the loan products each allow a subset. */
// prettier-ignore
export const LOAN_REASONS: ReadonlyArray<readonly [code: string, description: string]> = [
  ['CAR', 'Car purchase'],
  ['CARREP', 'Car repairs or MOT'],
  ['HOME', 'Home improvements'],
  ['CONS', 'Debt consolidation'],
  ['HOL', 'Holiday'],
  ['WED', 'Wedding'],
  ['XMAS', 'Christmas expenses'],
  ['EDU', 'Education or course fees'],
  ['FURN', 'Furniture or white goods'],
  ['MED', 'Medical or dental treatment'],
  ['FUNER', 'Funeral costs'],
  ['MOVE', 'Moving house or rent deposit'],
];

export const STAFF_USER_IDS = ['sarah.kaur', 'james.okafor', 'mike.hughes', 'priya.shah', 'dan.walsh', 'helen.booth'] as const;

interface ThreadScript {
  readonly messageType: number;
  readonly subject: string;
  /** Alternating customer and staff messages, the customer first. */
  readonly messages: readonly string[];
}

/** Conversations, each of a message type. */
// prettier-ignore
export const THREAD_SCRIPTS: readonly ThreadScript[] = [
  {
    messageType: MESSAGE_TYPE.GeneralEnquiry.value,
    subject: 'Opening hours over the bank holiday',
    messages: [
      'Hello, is the branch open on the bank holiday Monday? I need to pay in some cash.',
      'Hi, the branch is closed on bank holidays but you can pay in at any Post Office using your member card.',
      'Thank you, I will do that.',
    ],
  },
  {
    messageType: MESSAGE_TYPE.LoanEnquiry.value,
    subject: 'Loan application progress',
    messages: [
      'I applied for a loan last week and have not heard back. Could you let me know where it is up to?',
      'Thanks for your patience. We need your last three payslips before we can make a decision; you can upload them in the app.',
      'I have uploaded them now.',
      'Thank you, your application has been approved and the funds will reach your bank account within two working days.',
    ],
  },
  {
    messageType: MESSAGE_TYPE.LoanEnquiry.value,
    subject: 'Paying my loan off early',
    messages: [
      'How much would I need to pay to clear my loan in full this month?',
      'Your settlement figure is in the app under Loans > Settle. There is no penalty for paying early.',
    ],
  },
  {
    messageType: MESSAGE_TYPE.AccountQuery.value,
    subject: 'Payment not showing',
    messages: [
      'I sent £50 from my bank on Friday but it is not showing on my savings.',
      'Payments made after 4pm on a Friday are applied on the next working day; it shows on your account now.',
    ],
  },
  {
    messageType: MESSAGE_TYPE.AccountQuery.value,
    subject: 'Query about a fee',
    messages: [
      'There is a £5.00 fee on my account and I do not know what it is for.',
      'That is the replacement card fee from when your card was reissued. We have refunded it as a goodwill gesture.',
      'Much appreciated, thanks.',
    ],
  },
  {
    messageType: MESSAGE_TYPE.ChangeOfDetails.value,
    subject: 'Change of address',
    messages: [
      'I have moved house. Please update my address; my new postcode is in my profile.',
      'Thank you, we have updated your address. Please send a recent utility bill so we can confirm it.',
    ],
  },
  {
    messageType: MESSAGE_TYPE.ChangeOfDetails.value,
    subject: 'New employer',
    messages: [
      'I have changed jobs. Can my payroll savings move to my new employer?',
      'Yes, if your new employer is a payroll partner. Please send us the company name and we will check.',
    ],
  },
  {
    messageType: MESSAGE_TYPE.Complaint.value,
    subject: 'Complaint about waiting time',
    messages: [
      'I waited 40 minutes on the phone yesterday and then got cut off. This is not good enough.',
      'We are sorry for your experience. We have logged your complaint and a manager will call you within five working days.',
      'Thank you for getting back to me.',
    ],
  },
  {
    messageType: MESSAGE_TYPE.StatementRequest.value,
    subject: 'Statement for mortgage application',
    messages: [
      'Please could I have a statement of my savings for the last 12 months for my mortgage broker?',
      'Your statement has been posted to your address and a copy is available to download in the app.',
    ],
  },
  {
    messageType: MESSAGE_TYPE.StatementRequest.value,
    subject: 'Interest certificate',
    messages: [
      'Can you send me a certificate of the dividend paid last year for my tax return?',
      'We have sent the certificate to your e-mail address.',
    ],
  },
];

/** A national number as the core's numeric phone fields hold it: international digits, no '+'. */
export function internationalNumber(national: string): number {
  return Number(`44${national.slice(1)}`);
}

/** A national number spaced the way it is written: 0113 496 0123, 020 7946 0123, 07700 900123. */
export function nationalNumberText(national: string): string {
  if (national.startsWith('02')) return `${national.slice(0, 3)} ${national.slice(3, 7)} ${national.slice(7)}`;
  if (/^01\d1/.test(national)) return `${national.slice(0, 4)} ${national.slice(4, 7)} ${national.slice(7)}`;
  return `${national.slice(0, 5)} ${national.slice(5)}`;
}

/** The drama range of the town's branch city if the town is that city, else the national one. */
export function landlinePrefix(town: Town): string {
  const city = BRANCH_CITIES[town.branch];
  return city && town.name.startsWith(city.name) ? city.dialPrefix : DRAMA_LANDLINE_PREFIX;
}

/** Letters only, lower case: for e-mail addresses (O'Brien → obrien). */
export function asciiLower(name: string): string {
  return name.toLowerCase().replace(/[^a-z]/g, '');
}
