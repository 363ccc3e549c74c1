import { randomBytes } from 'node:crypto';
import type { Store } from '../store';
import { requestFields, responseFields } from './context';
import { readCustomFields, customFieldValues } from './custom-fields';
import { checkDescription } from './description';
import { runPhases } from './engine';
import { UnknownZoneError } from './errors';
import { LOG_DATASET, logEntry } from './log-entry';
import { type SimulatedRequest, buildRequest } from './request';
import { BODY_INSPECTION_LIMIT_BYTES } from './body';
import type { FieldOverrides } from './overrides';
import type { FinalOutcome, SimulationResult } from './types';

export interface SimulateOptions {
  /** The time of the request (default: the store's clock); an override of the timestamp fields wins. */
  now?: Date;
  /** The ray id (default: random); an override of `cf.ray_id` wins. */
  rayId?: string;
}

/**
 * What the zone's deployed configuration would do to the request `description` (parsed JSON,
 * see description.ts). Throws InvalidRequestDescriptionError or UnknownZoneError.
 */
export async function simulate(store: Store, zoneId: string, description: unknown, options: SimulateOptions = {}): Promise<SimulationResult> {
  if (options.now !== undefined && Number.isNaN(options.now.getTime())) throw new RangeError('options.now is an invalid Date');
  const checked = checkDescription(description);
  const zone = await store.zones.get(zoneId);
  if (zone === null) throw new UnknownZoneError(zoneId);
  const { overrides } = checked;
  const request = buildRequest(checked, {
    timestampMs: requestTime(overrides) ?? options.now?.getTime() ?? Math.floor(store.clock.nowMicros() / 1000),
    rayId: typeof overrides['cf.ray_id'] === 'string' ? overrides['cf.ray_id'] : (options.rayId ?? randomBytes(8).toString('hex')),
  });
  const requestContext = requestFields(request, overrides);
  const responseContext = request.response ? { ...requestContext, ...responseFields(request.response) } : null;
  const waf = await store.waf.getState(zone.id);
  const engine = await runPhases({ store, zone, requestContext, responseContext, managedRulesActive: waf?.new_managed_rules_enabled ?? true });

  const reachedOrigin = engine.terminated === null || !engine.terminated.rule.phase.startsWith('http_request_');
  const outcome: FinalOutcome = {
    action: engine.terminated?.rule.action ?? null,
    rule: engine.terminated?.rule ?? null,
    status: engine.terminated?.status ?? request.response?.status ?? null,
  };
  const customFields = await readCustomFields(store, zone.id);
  const custom = customFieldValues(customFields, request, reachedOrigin ? request.response : undefined);
  const jobs = (await store.logpushJobs.list(zone.id)).filter((job) => job.dataset === LOG_DATASET);
  const context = responseContext ?? requestContext;
  const entries = jobs.map((job) =>
    logEntry(job, { zone, request, context, outcome, edgeContentType: engine.terminated?.contentType ?? null, reachedOrigin, matched: engine.matched, custom }),
  );

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
    phases: engine.phases,
    owasp: engine.scores[0] ?? null,
    outcome,
    matched_rules: engine.matched,
    log: { custom_fields: { ...customFields, truncated: custom.truncated }, entries },
    warnings: [
      ...descriptionWarnings(request),
      ...engine.warnings,
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

function descriptionWarnings(request: SimulatedRequest): string[] {
  const warnings: string[] = [];
  if (request.clientIp === undefined) {
    warnings.push('no client_ip: ip.src is missing, so every condition on it is false (and a negated one true)');
  }
  if (request.target.droppedFragment !== null) warnings.push(`the url's fragment #${request.target.droppedFragment} is never sent; it was ignored`);
  if (new TextEncoder().encode(request.body).length > BODY_INSPECTION_LIMIT_BYTES) {
    warnings.push(`the body is larger than the ${BODY_INSPECTION_LIMIT_BYTES} bytes the edge inspects: rules saw only its start`);
  }
  return warnings;
}
