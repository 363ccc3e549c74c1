import { randomBytes } from 'node:crypto';
import {
  BODY_INSPECTION_LIMIT_BYTES,
  type FinalOutcome,
  RulesetCompiler,
  describeLocation,
  judge,
  readDeployment,
  requestFields,
  responseFields,
} from '../judge';
import { LOG_DATASET, customFieldValues, jobOutput, logEntry } from '../logpush';
import type { Store } from '../store';
import { checkDescription } from './description';
import { UnknownZoneError } from './errors';
import type { FieldOverrides } from './overrides';
import { type DescribedRequest, buildRequest } from './request';
import type { SimulationResult } from './types';

export interface SimulateOptions {
  /** The time of the request (default: the store's clock); an override of the timestamp fields wins. */
  now?: Date;
  /** The ray id (default: random); an override of `cf.ray_id` wins. */
  rayId?: string;
}

/**
 * Simulations compile a ruleset version once per store, as the edge does (per store: two stores
 * in one process, as tests open, may hold the same seeded ruleset at one version with other rules).
 */
const compilers = new WeakMap<Store, RulesetCompiler>();

function compilerOf(store: Store): RulesetCompiler {
  let compiler = compilers.get(store);
  if (compiler === undefined) compilers.set(store, (compiler = new RulesetCompiler()));
  return compiler;
}

/**
 * What the zone's deployed configuration would do to the request `description` (parsed JSON,
 * see description.ts): the edge's own judgment, traced. Throws InvalidRequestDescriptionError or
 * UnknownZoneError.
 */
export async function simulate(store: Store, zoneId: string, description: unknown, options: SimulateOptions = {}): Promise<SimulationResult> {
  if (options.now !== undefined && Number.isNaN(options.now.getTime())) throw new RangeError('options.now is an invalid Date');
  const checked = checkDescription(description);
  const deployment = await readDeployment(store, zoneId, compilerOf(store));
  if (deployment === null) throw new UnknownZoneError(zoneId);
  const { zone } = deployment;
  const { overrides } = checked;
  const described = buildRequest(checked, {
    timestampMs: requestTime(overrides) ?? options.now?.getTime() ?? Math.floor(store.clock.nowMicros() / 1000),
    rayId: typeof overrides['cf.ray_id'] === 'string' ? overrides['cf.ray_id'] : (options.rayId ?? randomBytes(8).toString('hex')),
  });
  const { request, response } = described;
  const requestContext = requestFields(request, overrides);
  const responseContext = response ? { ...requestContext, ...responseFields(response) } : null;
  const judgment = judge(deployment, requestContext, responseContext, { trace: true });

  const terminated = judgment.terminated;
  const reachedOrigin = terminated === null || !terminated.rule.phase.startsWith('http_request_');
  const outcome: FinalOutcome = {
    action: terminated?.rule.action ?? null,
    rule: terminated?.rule ?? null,
    status: terminated?.status ?? response?.status ?? null,
  };
  const customFields = deployment.customFields;
  const custom = customFieldValues(customFields, request, reachedOrigin ? response : undefined);
  const jobs = deployment.logpushJobs.filter((job) => job.dataset === LOG_DATASET);
  const context = responseContext ?? requestContext;
  const entries = jobs.map((job) => {
    const output = jobOutput(job);
    const logged = logEntry(output, {
      zone,
      request,
      context,
      outcome,
      edgeContentType: terminated?.contentType ?? null,
      reachedOrigin,
      originResponse: reachedOrigin ? response : undefined,
      matched: judgment.matched,
      custom,
    });
    return { job: { id: job.id, name: job.name, enabled: job.enabled }, fields: output.fields, ...logged };
  });

  return {
    zone: { id: zone.id, name: zone.name },
    request: {
      method: request.method,
      url: checked.description.url,
      http_version: request.version,
      client_ip: request.clientIp ?? null,
      ray_id: request.rayId,
      timestamp: new Date(request.timestampMs).toISOString(),
    },
    context,
    phases: judgment.phases,
    owasp: judgment.scores[0] ?? null,
    outcome,
    matched_rules: judgment.matched,
    log: { custom_fields: { ...customFields, truncated: custom.truncated }, entries },
    warnings: [
      ...descriptionWarnings(described),
      ...judgment.warnings,
      ...judgment.failures.map(
        (failure) => `rule ${describeLocation(failure.rule)} cannot be evaluated (${failure.message.split('\n')[0]}): the edge answers such a request with 500`,
      ),
      ...(customFields.ignored.length > 0
        ? [`only the first 40 custom log fields are logged; ignored: ${customFields.ignored.map((f) => `${f.kind} ${f.name}`).join(', ')}`]
        : []),
      ...(jobs.length === 0 ? [`the zone has no log push job for the ${LOG_DATASET} dataset: no log entry`] : []),
      ...jobs.filter((job) => !job.enabled).map((job) => `log push job ${job.id} is disabled: it pushes nothing until enabled`),
    ],
  };
}

/** The time the timestamp overrides name, if any (the description check made them agree). */
function requestTime(overrides: FieldOverrides): number | undefined {
  const msec = overrides['http.request.timestamp.msec'];
  const sec = overrides['http.request.timestamp.sec'];
  if (typeof msec === 'number') return msec;
  return typeof sec === 'number' ? sec * 1000 : undefined;
}

function descriptionWarnings({ request }: DescribedRequest): string[] {
  const warnings: string[] = [];
  if (request.clientIp === undefined) {
    warnings.push('no client_ip: ip.src is missing, so every condition on it is false (and a negated one true)');
  }
  if (request.target.droppedFragment !== null) warnings.push(`the url's fragment #${request.target.droppedFragment} is never sent; it was ignored`);
  if (request.bodySize > BODY_INSPECTION_LIMIT_BYTES) {
    warnings.push(`the body is larger than the ${BODY_INSPECTION_LIMIT_BYTES} bytes the edge inspects: rules saw only its start`);
  }
  return warnings;
}
