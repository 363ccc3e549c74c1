import { seededChance } from './chance';
import { compileRules, type Face, type FaultEffect, type FaultRule, type RuleCatalogue, type RuleMatch } from './rule-schema';

/** What a face knows of a request when it asks whether to fail it. */
export interface FaultRequest {
  method: string;
  /** The path as the face's rules see it (under /client/v4 for the API; `/<bucket>/<key>` for S3). */
  path: string;
  /** The operationId (API) or the S3 operation name. */
  operation?: string | undefined;
  bucket?: string | undefined;
}

export interface InjectedFault {
  rule: string;
  effect: FaultEffect;
}

/** The log line of an injected fault: which rule, which request, what was done. */
export interface FaultLogEntry {
  fault: string;
  face: Face;
  method: string;
  path: string;
  operation?: string;
  bucket?: string;
  effect: string;
}

/** A rule as listed by the control endpoint: as written, with its counters. */
export type RuleStatus = Record<string, unknown> & { name: string; matched: number; injected: number };

interface Entry {
  rule: FaultRule;
  /** Requests the rule matched (whether or not it failed them). */
  matched: number;
  /** Requests it failed, slowed or dropped. */
  injected: number;
  fires: () => boolean;
}

function matches(match: RuleMatch, request: FaultRequest): boolean {
  return (
    (match.operation === undefined || match.operation === request.operation) &&
    (match.method === undefined || match.method === request.method) &&
    (match.bucket === undefined || match.bucket === request.bucket) &&
    (match.path === undefined || match.path.test(request.path))
  );
}

/** `delay 200 ms, then status 503 SlowDown (Retry-After 1)`, for the log. */
export function describeEffect(effect: FaultEffect): string {
  const parts: string[] = [];
  if (effect.delayMs > 0) parts.push(`delay ${effect.delayMs} ms`);
  if (effect.drop !== undefined) parts.push(`drop ${effect.drop}`);
  if (effect.status !== undefined) {
    const what = effect.code ?? effect.errors?.map((error) => error.code).join(',');
    parts.push(`status ${effect.status}${what ? ` ${what}` : ''}${effect.retryAfter === undefined ? '' : ` (Retry-After ${effect.retryAfter})`}`);
  }
  return parts.join(', then ');
}

/**
 * One face's fault rules and their counters. Rules are tried in order: the first that matches a
 * request and whose condition fires decides what happens to it; the others neither see nor count
 * it. Deciding is synchronous, so counters and seeded draws follow the order requests arrive in.
 */
export class FaultSet {
  private entries: Entry[] = [];

  constructor(
    readonly face: Face,
    private readonly catalogue: RuleCatalogue,
    private readonly log: (entry: FaultLogEntry) => void = () => {},
  ) {}

  /** Replaces every rule (counters start again); bad rules throw a FaultRulesError and change nothing. */
  replace(list: unknown, source: string): void {
    this.entries = compileRules(list, this.face, this.catalogue, source).map((rule) => ({ rule, matched: 0, injected: 0, fires: firing(rule) }));
  }

  clear(): void {
    this.entries = [];
  }

  get size(): number {
    return this.entries.length;
  }

  list(): RuleStatus[] {
    return this.entries.map(({ rule, matched, injected }) => ({ name: rule.name, ...rule.written, matched, injected }));
  }

  /** The fault to inject into a request, counted and logged; undefined to serve it as usual. */
  decide(request: FaultRequest): InjectedFault | undefined {
    for (const entry of this.entries) {
      if (!matches(entry.rule.match, request)) continue;
      entry.matched += 1;
      if (!entry.fires()) continue;
      entry.injected += 1;
      const { rule } = entry;
      this.log({
        fault: rule.name,
        face: this.face,
        method: request.method,
        path: request.path,
        ...(request.operation === undefined ? {} : { operation: request.operation }),
        ...(request.bucket === undefined ? {} : { bucket: request.bucket }),
        effect: describeEffect(rule.effect),
      });
      return { rule: rule.name, effect: rule.effect };
    }
    return undefined;
  }
}

/** Whether the rule fails the request it just matched (called once per match). */
function firing(rule: FaultRule): () => boolean {
  const { when } = rule;
  if (when.kind === 'chance') return seededChance(when.probability, when.seed);
  if (when.kind === 'first') {
    let left = when.count;
    return () => {
      if (left === 0) return false;
      left -= 1;
      return true;
    };
  }
  return () => true;
}
