/** Names of what workers writes lock (see ../write-locks.ts for the rules locks follow). */

/** One script: its row, versions, deployments and secrets. */
export function workerScriptLock(accountId: string, name: string): string {
  return `worker:${accountId}/${name}`;
}

/** An account's workers.dev subdomain. */
export function workersSubdomainLock(accountId: string): string {
  return `workers-subdomain:${accountId}`;
}

/** A zone's workers routes. */
export function workerRoutesLock(zoneId: string): string {
  return `worker-routes:${zoneId}`;
}

/**
 * An account's cron triggers as a whole (their number is limited per account): taken before a
 * script's lock when a script's set is replaced.
 */
export function workerSchedulesLock(accountId: string): string {
  return `worker-schedules:${accountId}`;
}

/** One assets upload session: its uploads queue, so the last one sees every file and answers the completion token. */
export function assetSessionLock(sessionId: string): string {
  return `worker-assets-session:${sessionId}`;
}
