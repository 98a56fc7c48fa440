/**
 * Where the admin web UI's session state lives: with Redis, in Redis, so sign-out holds and a
 * single sign-on begun on one instance finishes on any other (the same place as the access
 * config); without it, in this process's memory (sandbox mode, one instance).
 *
 * Reads nothing; builds the stores over the client it is given.
 */
import type { RedisClient } from '../redis/redis-client';
import { MemoryOneTimeValues, RedisOneTimeValues, type OneTimeValues } from './one-time-values';
import { MemorySessionEpochs, RedisSessionEpochs, type SessionEpochs } from './session-epochs';

export function sessionStoresFor(redis: RedisClient | null | undefined, keyPrefix: string): { sessionEpochs: SessionEpochs; oneTimeValues: OneTimeValues } {
  return redis
    ? { sessionEpochs: new RedisSessionEpochs(redis, keyPrefix), oneTimeValues: new RedisOneTimeValues(redis, keyPrefix) }
    : { sessionEpochs: new MemorySessionEpochs(), oneTimeValues: new MemoryOneTimeValues() };
}
