/** Polls until `check` holds and returns how long that took; throws after `withinMs`. */
export async function within(withinMs: number, check: () => Promise<boolean> | boolean): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < withinMs) {
    if (await check()) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`condition not met within ${withinMs} ms`);
}
