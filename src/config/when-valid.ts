/**
 * When a rule across keys may run: whenever the keys it reads are valid, even if others are not.
 * Zod skips a refinement after any type error in the object by default, so one bad value would
 * hide every rule's problem until the next run; with this, one run names every problem.
 *
 * Reads and sets nothing; `reads` are dotted key paths relative to the object refined.
 */
import type { z } from 'zod';

/** One path is a prefix of the other: an issue there makes the key unreadable. */
function overlaps(issuePath: readonly PropertyKey[], key: readonly string[]): boolean {
  const shorter = Math.min(issuePath.length, key.length);
  return issuePath.slice(0, shorter).every((part, i) => String(part) === key[i]);
}

export function whenValid(...reads: readonly string[]): { when: (payload: z.core.ParsePayload) => boolean } {
  const keys = reads.map((key) => key.split('.'));
  return { when: (payload) => !payload.issues.some((issue) => keys.some((key) => overlaps(issue.path ?? [], key))) };
}
