/** Jest global teardown of the Redis projects: stops the shared Redis that global setup started. */
export default async function globalTeardown(): Promise<void> {
  await globalThis.__SHARED_REDIS__?.stop();
}
