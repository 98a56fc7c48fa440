/**
 * An admin AccessService over a store, as the gateway builds one: with its own access cache, which
 * loads the store on first use. For tests that drive the admin API without a whole gateway.
 */
import { AccessService, type AccessServiceOptions } from '../../src/admin/operations/access-service';
import type { AccessStore } from '../../src/access/access-store';
import { AccessCache } from '../../src/access/cache';
import { createLogger } from '../../src/logging/logger';

export function accessServiceFor(store: AccessStore, options: AccessServiceOptions = {}): AccessService {
  return new AccessService(new AccessCache(store, createLogger('silent')), store, options);
}

const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * A document as the store gives it back: vendors, their keys and users ordered by id, and
 * without the file-only `sandbox` marker (checked when the file is read, not stored).
 */
export function storedForm<T extends { sandbox?: boolean; vendors: Array<{ id: string; keys: Array<{ id: string }> }>; users: Array<{ id: string }> }>(
  document: T,
): Omit<T, 'sandbox'> {
  const { sandbox: _sandbox, ...rest } = document;
  return {
    ...rest,
    vendors: [...document.vendors].sort(byId).map((vendor) => ({ ...vendor, keys: [...vendor.keys].sort(byId) })),
    users: [...document.users].sort(byId),
  };
}
