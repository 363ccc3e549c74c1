/**
 * The runtime of deployed workers: each version of each deployed script in a workerd process of
 * its own (from the `workerd` package), seeing its own bindings and nothing else.
 *
 * - `WorkersRuntime.start({ catalogue, cpuMs, log, report })`; `apply(deployed)` runs what is
 *   deployed (new versions started before the switch, old ones finishing their requests);
 *   `run(account, script, request)` answers one request on the script's deployment;
 *   `close()` stops everything.
 * - Bindings: `plain_text` and `json` as workerd's text and JSON bindings, `secret_text` from the
 *   process's own environment (never a file), `r2_bucket` through the platform's bucket service
 *   (`bucket-service/`: workerd's own wire format, served from the catalogue), each binding with
 *   a grant to its bucket alone.
 * - A request whose process stays busy for the whole CPU limit is cut off (`watchdog.ts`).
 * - Cron triggers: `scheduled(account, script, cron, time)` runs a deployment's `scheduled`
 *   handler through each process's trigger service; `CronTriggers` fires them at each minute
 *   (one timer; each run claimed first through the function it is handed, so that instances
 *   sharing a database fire it once).
 * - `trace(account, script, on)`: a tailed script's versions run with the platform's tail worker
 *   (`tails/`), whose traces come out through `onTraces`; nobody tailing, nothing traced.
 */
export type { DeployedBinding, DeployedModule, DeployedScript, DeployedVersion, DeployedWorkers, DeployedZone, ModuleType } from './deployed';
export { CronTriggers, type CronRun, type CronTriggersOptions } from './cron-triggers';
export type { RunResult, ScheduledResult } from './instance';
export type { RunRequest } from './proxy';
export type { Traces } from './tails/trace-sink';
export { WorkersRuntime, type WorkersRuntimeOptions } from './runtime';
