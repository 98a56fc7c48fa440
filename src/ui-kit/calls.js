// @ts-check
// How many calls a traffic answer (`GET /v1/traffic`: `{ series: [{ points: [[unixSeconds,
// requests], ...] }] }`) counts in all, for a confirmation that names what a vendor would lose.
// Pure: reads the answer it is given.

/**
 * The sum of every point of every series, or null when the answer is not a traffic answer (an
 * older gateway, an error page): the caller then says the calls are not known.
 * @param {unknown} answer
 * @returns {number | null}
 */
export function callsIn(answer) {
  const series = answer && typeof answer === 'object' ? /** @type {{ series?: unknown }} */ (answer).series : undefined;
  if (!Array.isArray(series)) return null;
  let total = 0;
  for (const one of series) {
    const points = one && typeof one === 'object' ? /** @type {{ points?: unknown }} */ (one).points : undefined;
    if (!Array.isArray(points)) return null;
    for (const point of points) {
      const requests = Array.isArray(point) ? Number(point[1]) : NaN;
      if (!Number.isFinite(requests)) return null;
      total += requests;
    }
  }
  return total;
}
