/**
 * The log step of a live request: its entry for each enabled `http_requests` job of the zone
 * (sampled as the job says), handed to the delivery.
 */
import type { ZoneDeployment } from '../judge';
import type { LogpushJob } from '../store';
import { customFieldValues } from './custom-fields';
import type { LogDelivery } from './delivery';
import { type JobOutput, formatRecord, jobOutput } from './job-output';
import { LOG_DATASET, type LoggedRequest, logEntry } from './log-entry';

/** Each job's output, read once per job object (deployments are rebuilt when a job changes). */
const outputs = new WeakMap<LogpushJob, JobOutput>();

function outputOf(job: LogpushJob): JobOutput {
  let output = outputs.get(job);
  if (output === undefined) outputs.set(job, (output = jobOutput(job)));
  return output;
}

/** Whether any job of the zone takes entries: the edge gathers what an entry needs only then. */
export function logsRequests(deployment: Pick<ZoneDeployment, 'logpushJobs'>): boolean {
  return deployment.logpushJobs.some((job) => job.enabled && job.dataset === LOG_DATASET);
}

export function logRequest(delivery: LogDelivery, deployment: Pick<ZoneDeployment, 'zone' | 'logpushJobs' | 'customFields'>, facts: Omit<LoggedRequest, 'zone' | 'custom'>): void {
  let inputs: LoggedRequest | undefined;
  for (const job of deployment.logpushJobs) {
    if (!job.enabled || job.dataset !== LOG_DATASET) continue;
    const output = outputOf(job);
    if (output.sampleRate < 1 && Math.random() >= output.sampleRate) continue;
    inputs ??= {
      ...facts,
      zone: deployment.zone,
      custom: customFieldValues(deployment.customFields, facts.request, facts.reachedOrigin ? facts.originResponse : undefined),
    };
    delivery.add(deployment.zone.id, job, formatRecord(output.format, output.fields, logEntry(output, inputs).entry), facts.request.timestampMs);
  }
}
