/**
 * Date arithmetic for generating the sandbox data, in UTC so that no machine's time zone or
 * daylight saving shifts a generated date; the core's datetimes carry no offset, and `iso`
 * writes them that way (2024-03-01T09:30:00).
 *
 * Reads nothing; pure functions.
 */
import type { SeededRandom } from './random';

const DAY_MS = 86_400_000;

export function iso(date: Date): string {
  return date.toISOString().slice(0, 19);
}

export function fromIso(text: string): Date {
  return new Date(`${text}Z`);
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * DAY_MS);
}

/** The same day `months` later, clamped to the month's end (31 January + 1 month = 28 February). */
export function addMonths(date: Date, months: number): Date {
  const result = new Date(date.getTime());
  const day = result.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  result.setUTCDate(Math.min(day, daysInMonth(result)));
  return result;
}

function daysInMonth(date: Date): number {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
}

export function atTime(date: Date, hours: number, minutes: number, seconds = 0): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), hours, minutes, seconds));
}

export function daysBetween(from: Date, to: Date): number {
  return Math.floor((to.getTime() - from.getTime()) / DAY_MS);
}

/** Midnight at the start of the month's last day. */
export function endOfMonth(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), daysInMonth(date), 0, 0));
}

/** A moment in office hours on `day`, when members and staff do things. */
export function businessMoment(rng: SeededRandom, day: Date): Date {
  return atTime(day, rng.int(8, 17), rng.int(0, 59), rng.int(0, 59));
}
