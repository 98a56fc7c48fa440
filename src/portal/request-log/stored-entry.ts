/**
 * The request log's entry as the Redis store keeps it: one short string beside the request id
 * and the log id, `<delayMs>|<apiId>|<status>|<durationMs>|<upstreamStatus>|<upstreamMs>|<keyPrefix>|<code>`
 * (an absent value empty). The time is the log id's millisecond less `delayMs` (0 unless the
 * entry reached Redis after a newer one), so it costs a byte rather than thirteen; positional,
 * so a million entries do not each carry field names. The write script puts the delay in front
 * (it alone knows the log id); `|` is in none of the values (API ids, key prefixes and error
 * codes are the gateway's own words).
 *
 * Reads and sets nothing.
 */
import type { RequestLogEntry } from './request-log';

const SEPARATOR = /\|/g;

/** All but the delay: what the write script is given. */
export function storedTail(entry: RequestLogEntry): string {
  const text = (value: string | undefined): string => (value === undefined ? '' : value.replace(SEPARATOR, '/'));
  const number = (value: number | undefined): string => (value === undefined ? '' : String(value));
  return `${text(entry.apiId)}|${entry.status}|${entry.durationMs}|${number(entry.upstreamStatus)}|${number(entry.upstreamMs)}|${text(entry.keyPrefix)}|${text(entry.code)}`;
}

export function fromStored(requestId: string, logId: string, stored: string): RequestLogEntry {
  const [delay, apiId, status, durationMs, upstreamStatus, upstreamMs, keyPrefix, code] = stored.split('|') as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  return {
    at: new Date(Number.parseInt(logId, 10) - Number(delay)).toISOString(),
    requestId,
    apiId,
    status: Number(status),
    durationMs: Number(durationMs),
    ...(upstreamStatus !== '' ? { upstreamStatus: Number(upstreamStatus) } : {}),
    ...(upstreamMs !== '' ? { upstreamMs: Number(upstreamMs) } : {}),
    keyPrefix,
    ...(code !== '' ? { code } : {}),
  };
}
