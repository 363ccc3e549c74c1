/**
 * The filters a tail is created with (`POST .../tails` with `{"filters": [...]}`, as wrangler
 * sends its `--status`, `--method`, `--header`, `--ip`, `--search`, `--sampling-rate` and
 * `--version-id`), checked once and compiled into one test per trace. A trace is sent only when
 * every filter passes.
 */
import { isIP } from 'node:net';

export type TailFilter =
  | { sampling_rate: number }
  | { outcome: string[] }
  | { method: string[] }
  | { header: { key: string; query?: string } }
  | { client_ip: string[] }
  | { query: string }
  | { scriptVersion: string };

/** The outcomes a trace may have (wrangler's `--status error` names the last four). */
export const OUTCOMES = ['ok', 'canceled', 'exception', 'exceededCpu', 'exceededMemory', 'unknown'] as const;

/** One trace as the filters see it: workerd's trace item, its request's headers unredacted, its version. */
export interface FilteredTrace {
  event: Record<string, unknown>;
  headers: Record<string, string>;
  version: string;
}

/** A filter the platform cannot apply as sent: the message says which and why. */
export class TailFilterError extends Error {
  override readonly name = 'TailFilterError';
}

type Test = (trace: FilteredTrace) => boolean;

/** An address as the edge and the API may each write it (`::ffff:127.0.0.1` is `127.0.0.1`). */
export function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

function requestOf(trace: FilteredTrace): { method?: unknown } | undefined {
  const event = trace.event.event as { request?: { method?: unknown } } | null | undefined;
  return event?.request;
}

/** The text of a log line's message parts, as `--search` matches it. */
function logText(trace: FilteredTrace): string {
  const logs = Array.isArray(trace.event.logs) ? (trace.event.logs as { message?: unknown }[]) : [];
  return logs.map(({ message }) => (Array.isArray(message) ? message : [message]).map((part) => (typeof part === 'string' ? part : JSON.stringify(part))).join(' ')).join('\n');
}

function compileOne(filter: TailFilter, index: number, selfAddress: string, random: () => number): Test {
  const where = `filters[${index}]`;
  if ('sampling_rate' in filter) {
    const rate = filter.sampling_rate;
    if (!(typeof rate === 'number' && rate > 0 && rate <= 1)) throw new TailFilterError(`${where}.sampling_rate: a share of the traces to send, more than 0 and at most 1`);
    return () => random() < rate;
  }
  if ('outcome' in filter) {
    const unknown = filter.outcome.filter((outcome) => !(OUTCOMES as readonly string[]).includes(outcome));
    if (unknown.length > 0) throw new TailFilterError(`${where}.outcome: ${unknown.map((outcome) => JSON.stringify(outcome)).join(', ')} is not an outcome (${OUTCOMES.join(', ')})`);
    const outcomes = new Set(filter.outcome);
    return (trace) => outcomes.has(String(trace.event.outcome));
  }
  if ('method' in filter) {
    const methods = new Set(filter.method.map((method) => method.toUpperCase()));
    return (trace) => {
      const method = requestOf(trace)?.method;
      return typeof method === 'string' && methods.has(method.toUpperCase());
    };
  }
  if ('header' in filter) {
    const key = filter.header.key.trim().toLowerCase();
    if (key === '') throw new TailFilterError(`${where}.header.key: a header name`);
    const query = filter.header.query;
    return (trace) => {
      const value = trace.headers[key];
      return value !== undefined && (query === undefined || value === query);
    };
  }
  if ('client_ip' in filter) {
    const addresses = new Set<string>();
    for (const address of filter.client_ip) {
      if (address === 'self') addresses.add(plainAddress(selfAddress));
      else if (isIP(address) !== 0) addresses.add(plainAddress(address));
      else throw new TailFilterError(`${where}.client_ip: ${JSON.stringify(address)} is not an IP address (nor "self")`);
    }
    return (trace) => addresses.has(plainAddress(trace.headers['cf-connecting-ip'] ?? ''));
  }
  if ('query' in filter) {
    const query = filter.query;
    return (trace) => logText(trace).includes(query);
  }
  if ('scriptVersion' in filter) {
    const version = filter.scriptVersion;
    return (trace) => trace.version === version;
  }
  throw new TailFilterError(`${where}: not a filter this platform applies (sampling_rate, outcome, method, header, client_ip, query, scriptVersion)`);
}

/**
 * One test for all the filters. `selfAddress` is the address the tail was created from (what
 * `--ip self` means).
 */
export function compileFilters(filters: readonly TailFilter[], selfAddress: string, random: () => number = Math.random): Test {
  const tests = filters.map((filter, index) => compileOne(filter, index, selfAddress, random));
  if (tests.length === 0) return () => true;
  return (trace) => tests.every((test) => test(trace));
}
