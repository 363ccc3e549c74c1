/**
 * Fault rules as users write them (a file's `api` and `s3` lists, or the control endpoint's
 * body), checked field by field and compiled for matching. One rule:
 *
 * ```yaml
 * - name: two-429s                       # optional, unique; names the rule in logs and listings
 *   match: { operationId: listZones }    # API: operationId, or method and/or path (globs)
 *                                        # S3: operation and/or bucket; no match: every request
 *   status: 429                          # answer this error, with the service's own body...
 *   retryAfter: 1                        # ...and Retry-After (seconds; 429 sends 1 by default)
 *   delayMs: 2000                        # wait first (alone: the request then proceeds)
 *   drop: before-response                # or close the connection (mid-response: after a partial answer)
 *   first: 2                             # only the first N requests the rule sees; or
 *   probability: 0.3                     # each with this chance...
 *   seed: 7                              # ...drawn from this seed (reproducible); neither: always
 * ```
 */
import { distance } from 'fastest-levenshtein';
import { z } from 'zod';
import { defaultApiErrors, S3_CODE_BY_STATUS, S3_ERRORS, type ApiErrorItem } from './answers';
import { FaultRulesError } from './errors';
import { globPattern } from './path-glob';

export type Face = 'api' | 's3';

export const DROP_POINTS = ['before-response', 'mid-response'] as const;
export type DropPoint = (typeof DROP_POINTS)[number];

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Longer than any client's default timeout, short enough that a typo does not hang a job for hours. */
export const MAX_DELAY_MS = 300_000;
/** A day, as the largest Retry-After worth sending. */
const MAX_RETRY_AFTER = 86_400;

export interface RuleMatch {
  /** An operationId (API) or an S3 operation name. */
  operation?: string;
  method?: string;
  path?: RegExp;
  bucket?: string;
}

export interface FaultEffect {
  /** Milliseconds to wait before the rest of the effect (0: none). */
  delayMs: number;
  drop?: DropPoint;
  status?: number;
  /** Seconds, for the Retry-After header. */
  retryAfter?: number;
  /** The API's envelope errors. */
  errors?: ApiErrorItem[];
  /** S3's error code and message. */
  code?: string;
  message?: string;
}

export type When = { kind: 'always' } | { kind: 'first'; count: number } | { kind: 'chance'; probability: number; seed: number };

export interface FaultRule {
  name: string;
  match: RuleMatch;
  effect: FaultEffect;
  when: When;
  /** The rule as written (after checking), for listings. */
  written: Readonly<Record<string, unknown>>;
}

/** What a face's rules may name: the API's operationIds, or the S3 endpoint's operations. */
export interface RuleCatalogue {
  operations: ReadonlySet<string>;
}

const shown = (value: unknown): string => (value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value)));

function wholeNumber(min: number, max: number, what: string) {
  const error = (issue: { input?: unknown }) => `must be ${what}, not ${shown(issue.input)}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

function text(what: string, max = 200) {
  const error = (issue: { input?: unknown }) => `must be ${what}, not ${shown(issue.input)}`;
  return z.string({ error }).min(1, { error }).max(max, { error });
}

/**
 * The rules' schemas, built when a first rule is checked: most starts have no rule, and building
 * them is a measurable share of a start.
 */
function buildRuleSchemas() {
  const common = {
    name: text('a name of 1 to 100 characters', 100).optional(),
    status: wholeNumber(400, 599, 'an error status from 400 to 599').optional(),
    retryAfter: wholeNumber(0, MAX_RETRY_AFTER, `a whole number of seconds from 0 to ${MAX_RETRY_AFTER}`).optional(),
    delayMs: wholeNumber(0, MAX_DELAY_MS, `a whole number of milliseconds from 0 to ${MAX_DELAY_MS}`).optional(),
    drop: z.enum(DROP_POINTS, { error: (issue) => `must be ${DROP_POINTS.join(' or ')}, not ${shown(issue.input)}` }).optional(),
    first: wholeNumber(1, Number.MAX_SAFE_INTEGER, 'a whole number of requests, at least 1').optional(),
    probability: z
      .number({ error: (issue) => `must be a number from 0 to 1, not ${shown(issue.input)}` })
      .min(0, { error: (issue) => `must be a number from 0 to 1, not ${shown(issue.input)}` })
      .max(1, { error: (issue) => `must be a number from 0 to 1, not ${shown(issue.input)}` })
      .optional(),
    seed: wholeNumber(0, 2 ** 32 - 1, 'a whole number from 0 to 4294967295').optional(),
  };

  const method = z
    .string({ error: (issue) => `must be one of ${METHODS.join(', ')}, not ${shown(issue.input)}` })
    .transform((value) => value.toUpperCase())
    .refine((value) => (METHODS as readonly string[]).includes(value), { error: (issue) => `must be one of ${METHODS.join(', ')}, not ${shown(issue.input)}` });

  const apiRule = z.strictObject({
    ...common,
    match: z
      .strictObject({
        operationId: text('an operationId of the API document').optional(),
        method: method.optional(),
        path: text('a path under /client/v4 such as /zones/*/rulesets', 2000)
          .refine((value) => value.startsWith('/'), { error: (issue) => `must start with "/", not ${shown(issue.input)}` })
          .optional(),
      })
      .optional(),
    errors: z
      .array(
        z.strictObject({
          code: wholeNumber(1, Number.MAX_SAFE_INTEGER, 'a whole number, at least 1'),
          message: text('a message of 1 to 1000 characters', 1000),
        }),
        { error: (issue) => `must be a list of {code, message}, not ${shown(issue.input)}` },
      )
      .min(1, { error: 'must list at least one {code, message}' })
      .optional(),
  });

  const s3Rule = z.strictObject({
    ...common,
    match: z
      .strictObject({
        operation: text('an S3 operation name such as PutObject').optional(),
        bucket: text('a bucket name', 63).optional(),
      })
      .optional(),
    code: z
      .string({ error: (issue) => `must be an S3 error code such as SlowDown, not ${shown(issue.input)}` })
      .regex(/^[A-Za-z]{1,64}$/, { error: (issue) => `must be an S3 error code such as SlowDown, not ${shown(issue.input)}` })
      .optional(),
    message: text('a message of 1 to 1000 characters', 1000).optional(),
  });

  return { apiRule, s3Rule };
}

let builtSchemas: ReturnType<typeof buildRuleSchemas> | undefined;
const ruleSchemas = () => (builtSchemas ??= buildRuleSchemas());

type ApiRuleInput = z.output<ReturnType<typeof buildRuleSchemas>['apiRule']>;
type S3RuleInput = z.output<ReturnType<typeof buildRuleSchemas>['s3Rule']>;

const FIELDS: Record<Face, string> = {
  api: 'name, match, status, retryAfter, errors, delayMs, drop, first, probability, seed',
  s3: 'name, match, status, code, message, retryAfter, delayMs, drop, first, probability, seed',
};

/** The place of a zod issue inside a rule: `match.operationId`, `errors[0].code`. */
function placeOf(path: readonly PropertyKey[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`)).join('');
}

/** The problems of one rule, each worded `field message`, plus its compiled form when it has none. */
function checkRule(raw: unknown, face: Face, catalogue: RuleCatalogue): { problems: string[]; rule?: Omit<FaultRule, 'name'> & { name?: string } } {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { problems: [`must be an object with fields ${FIELDS[face]}, not ${shown(raw)}`] };
  const { apiRule, s3Rule } = ruleSchemas();
  const parsed = (face === 'api' ? apiRule : s3Rule).safeParse(raw);
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.map((issue) => {
        if (issue.code === 'unrecognized_keys') {
          const where = placeOf(issue.path);
          const allowed = where === '' ? FIELDS[face] : where === 'match' ? (face === 'api' ? 'operationId, method, path' : 'operation, bucket') : 'code, message';
          return `${where === '' ? '' : `${where}: `}unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')} (fields: ${allowed})`;
        }
        return `${placeOf(issue.path)} ${issue.message}`;
      }),
    };
  }
  const rule = parsed.data;
  const problems: string[] = [];
  const effect = face === 'api' ? apiEffect(rule as ApiRuleInput, problems) : s3Effect(rule as S3RuleInput, problems);
  if (effect.status === undefined && effect.drop === undefined && effect.delayMs === 0 && problems.length === 0) {
    problems.push('does nothing: give it a status, a delayMs or a drop');
  }
  if (rule.status !== undefined && rule.drop !== undefined) problems.push('status and drop exclude each other: a dropped connection answers nothing');
  if (rule.retryAfter !== undefined && effect.status === undefined) problems.push('retryAfter needs a status to go with');
  if (rule.first !== undefined && rule.probability !== undefined) problems.push('first and probability exclude each other: give one, or neither for always');
  if (rule.seed !== undefined && rule.probability === undefined) problems.push('seed needs a probability to draw from');
  const match = face === 'api' ? apiMatch(rule as ApiRuleInput, catalogue, problems) : s3Match(rule as S3RuleInput, catalogue, problems);
  if (problems.length > 0) return { problems };
  const when: When =
    rule.first !== undefined
      ? { kind: 'first', count: rule.first }
      : rule.probability !== undefined
        ? { kind: 'chance', probability: rule.probability, seed: rule.seed ?? 0 }
        : { kind: 'always' };
  return { problems, rule: { ...(rule.name === undefined ? {} : { name: rule.name }), match, effect, when, written: Object.freeze({ ...rule }) } };
}

function apiEffect(rule: ApiRuleInput, problems: string[]): FaultEffect {
  const effect: FaultEffect = { delayMs: rule.delayMs ?? 0 };
  if (rule.drop !== undefined) effect.drop = rule.drop;
  if (rule.errors !== undefined && rule.status === undefined) problems.push('errors needs a status to go with');
  if (rule.status === undefined) return effect;
  const errors = rule.errors ?? defaultApiErrors(rule.status);
  if (errors === undefined) {
    problems.push(`status ${rule.status} has no documented answer of the platform: give errors: [{code, message}] for it`);
    return effect;
  }
  // The real service sends Retry-After on every 429; one second keeps a test's retries quick.
  const retryAfter = rule.retryAfter ?? (rule.status === 429 ? 1 : undefined);
  return { ...effect, status: rule.status, errors, ...(retryAfter === undefined ? {} : { retryAfter }) };
}

function s3Effect(rule: S3RuleInput, problems: string[]): FaultEffect {
  const effect: FaultEffect = { delayMs: rule.delayMs ?? 0 };
  if (rule.drop !== undefined) effect.drop = rule.drop;
  if (rule.status === undefined && rule.code === undefined) {
    if (rule.message !== undefined) problems.push('message needs a status or a code to go with');
    return effect;
  }
  const code = rule.code ?? S3_CODE_BY_STATUS[rule.status!];
  const known = code === undefined ? undefined : S3_ERRORS[code];
  const status = rule.status ?? known?.status;
  if (code === undefined) {
    problems.push(`status ${rule.status} stands for no S3 error by itself: give a code (for example ${Object.keys(S3_ERRORS).join(', ')})`);
    return effect;
  }
  if (status === undefined) {
    problems.push(`code "${code}" is not one this endpoint knows the status of (${Object.keys(S3_ERRORS).join(', ')}): give a status too`);
    return effect;
  }
  const message = rule.message ?? known?.message;
  if (message === undefined) {
    problems.push(`code "${code}" needs a message: S3's wording for it is not known here`);
    return effect;
  }
  const retryAfter = rule.retryAfter;
  return { ...effect, status, code, message, ...(retryAfter === undefined ? {} : { retryAfter }) };
}

function apiMatch(rule: ApiRuleInput, catalogue: RuleCatalogue, problems: string[]): RuleMatch {
  const given = rule.match ?? {};
  const match: RuleMatch = {};
  if (given.operationId !== undefined) {
    if (given.method !== undefined || given.path !== undefined) problems.push('match takes an operationId, or a method and/or a path, not both');
    if (!catalogue.operations.has(given.operationId)) {
      problems.push(`match.operationId "${given.operationId}" is not an operationId of the API document${suggestion(given.operationId, catalogue.operations)}`);
    }
    match.operation = given.operationId;
  }
  if (given.method !== undefined) match.method = given.method;
  if (given.path !== undefined) match.path = globPattern(given.path.startsWith('/client/v4/') ? given.path.slice('/client/v4'.length) : given.path);
  return match;
}

function s3Match(rule: S3RuleInput, catalogue: RuleCatalogue, problems: string[]): RuleMatch {
  const given = rule.match ?? {};
  const match: RuleMatch = {};
  if (given.operation !== undefined) {
    if (!catalogue.operations.has(given.operation)) {
      problems.push(`match.operation "${given.operation}" is not an operation of the S3 endpoint${suggestion(given.operation, catalogue.operations)}`);
    }
    match.operation = given.operation;
  }
  if (given.bucket !== undefined) match.bucket = given.bucket;
  return match;
}

/** ` (did you mean X?)` for a name one or two edits (letter case aside) from known ones. */
function suggestion(name: string, known: ReadonlySet<string>): string {
  const lower = name.toLowerCase();
  const scored = [...known].map((candidate) => ({ candidate, edits: distance(lower, candidate.toLowerCase()) })).filter(({ edits }) => edits <= 2);
  const best = Math.min(...scored.map(({ edits }) => edits));
  const close = scored.filter(({ edits }) => edits === best).map(({ candidate }) => candidate);
  return close.length > 0 ? ` (did you mean ${close.join(' or ')}?)` : '';
}

/**
 * Checks a face's list of rules; every problem is reported at once, as `api[1] "name": field
 * message`. Throws a FaultRulesError naming `source` when there is any.
 */
export function compileRules(list: unknown, face: Face, catalogue: RuleCatalogue, source: string): FaultRule[] {
  if (!Array.isArray(list)) throw new FaultRulesError(source, [`${face} must be a list of rules, not ${shown(list)}`]);
  const problems: string[] = [];
  const rules: FaultRule[] = [];
  const names = new Set<string>();
  list.forEach((raw, index) => {
    const written = (raw as { name?: unknown } | null)?.name;
    const label = `${face}[${index}]${typeof written === 'string' ? ` "${written}"` : ''}`;
    const checked = checkRule(raw, face, catalogue);
    const name = checked.rule?.name ?? `${face}[${index}]`;
    if (checked.rule && names.has(name)) checked.problems.push(`name "${name}" is given to an earlier rule too; names must be unique`);
    names.add(name);
    for (const problem of checked.problems) problems.push(`${label}: ${problem}`);
    if (checked.rule) rules.push({ ...checked.rule, name });
  });
  if (problems.length > 0) throw new FaultRulesError(source, problems);
  return rules;
}

/**
 * The two lists of a rules document (`{api: [...], s3: [...]}`, either optional), checked for
 * shape only: each face compiles its own list against what it serves.
 */
export function splitFaces(document: unknown, source: string): { api?: unknown; s3?: unknown } {
  if (document === null || document === undefined) return {};
  if (typeof document !== 'object' || Array.isArray(document)) {
    throw new FaultRulesError(source, [`must be an object with the lists "api" and/or "s3", not ${shown(document)}`]);
  }
  const unknown = Object.keys(document).filter((key) => key !== 'api' && key !== 's3');
  if (unknown.length > 0) {
    throw new FaultRulesError(source, [`unknown section${unknown.length > 1 ? 's' : ''} ${unknown.map((key) => `"${key}"`).join(', ')} (sections: api, s3)`]);
  }
  return document as { api?: unknown; s3?: unknown };
}
