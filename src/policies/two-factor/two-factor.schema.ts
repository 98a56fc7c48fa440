/**
 * Config of the two-factor policy (config key `twoFactor`): the SMS code that
 * `POST /bankaccounts/verification` sends and `POST /bankaccounts/add` needs.
 *
 * Reads nothing; exports the schema and its type. The pepper is a secret shared by every
 * instance (env `GATEWAY__twoFactor__pepper`); without Redis, a null pepper means a random one
 * per process, which is all one instance needs.
 */
import { z } from 'zod';

const sendLimit = z
  .object({
    points: z.number().int().min(1).describe('Codes that may be sent per window'),
    durationSeconds: z.number().int().min(1).describe('Window length'),
  })
  .strict();

const DEFAULT_SEND_LIMITS = [
  { points: 1, durationSeconds: 60 },
  { points: 5, durationSeconds: 3600 },
];

export const twoFactorSchema = z
  .object({
    codeTtlSeconds: z.number().int().min(30).max(86_400).default(600).describe('Lifetime of a sent code'),
    maxAttempts: z
      .number()
      .int()
      .min(1)
      .max(20)
      .default(5)
      .describe("Wrong codes for one customer (whichever vendor sends them) that lock changes to the customer's bank accounts"),
    lockSeconds: z.number().int().min(1).default(3600).describe('How long the lock lasts; wrong codes are also counted until this long after the last one'),
    pepper: z
      .string()
      .min(32)
      .nullable()
      .default(null)
      .meta({ secret: true })
      .describe('HMAC key for the stored code hashes, the same on every instance (env GATEWAY__twoFactor__pepper); required with Redis'),
    sendLimitsPerNumber: z
      .array(sendLimit)
      .min(1)
      .default(DEFAULT_SEND_LIMITS)
      .describe('Codes sent to one mobile number, whichever vendor asks, per window (every limit applies)'),
    sendLimitsPerCustomer: z
      .array(sendLimit)
      .min(1)
      .default(DEFAULT_SEND_LIMITS)
      .describe('Codes sent for one customer, whichever vendor asks, per window (every limit applies)'),
    sendLimitsPerVendor: z
      .array(sendLimit)
      .min(1)
      .default([{ points: 100, durationSeconds: 3600 }])
      .describe("One vendor's SMS budget: codes it may have sent per window (every limit applies)"),
    messageTemplate: z
      .string()
      .includes('{code}')
      .default('Your code to add a bank account is {code}. It expires in {minutes} minutes. Never share it.')
      .describe('SMS text of a code sent without a destination (it adds a new account only); {code} is the 6-digit code and {minutes} its lifetime'),
    destinationMessageTemplate: z
      .string()
      .includes('{code}')
      .includes('{last4}')
      .default('Your code to add or switch to the bank account ending {last4} is {code}. It expires in {minutes} minutes. Never share it.')
      .describe('SMS text of a code bound to a destination (AccountNumber and SortCode); {last4} is the last four digits of its account number'),
  })
  .strict();

export type TwoFactorConfig = z.infer<typeof twoFactorSchema>;
