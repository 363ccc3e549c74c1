/**
 * What is deployed, followed: the store's read model polled for its change marker, and on a
 * change read whole and handed to the runtime (new versions started first) and then to the
 * edge's routes. Several platforms on one database each follow it, so a deployment made through
 * any of them serves on all within the poll interval and a start.
 */
import type { EdgeRoutes } from '../edge';
import type { DeployedWorkers, WorkersRuntime } from '../runtime';
import { StoreUnavailableError } from '../store';

/** The store's read model of what is deployed, as the platform reads it. */
export interface DeploymentsReader {
  changeMarker(): Promise<number>;
  snapshot(): Promise<DeployedWorkers & { marker: number }>;
  /** A static asset's bytes, by the account holding them and its hash. */
  assetContent(accountId: string, hash: string): Promise<{ bytes: Uint8Array; content_type: string | null } | null>;
  /** Claims a cron trigger's run at a minute: true for one caller only, on every instance sharing the store. */
  claimScheduledRun(accountId: string, script: string, cron: string, minute: number): Promise<boolean>;
}

/** How often the change marker is read. */
export const POLL_MS = 100;

/** The edge's routes of what is deployed: workers.dev names of deployed scripts whose switch is on, and zones' routes. */
export function edgeRoutesOf(deployed: DeployedWorkers): EdgeRoutes {
  const byAccount = new Map<string, string[]>();
  for (const script of deployed.scripts) {
    if (!script.workers_dev || script.versions.length === 0) continue;
    byAccount.set(script.account_id, [...(byAccount.get(script.account_id) ?? []), script.name]);
  }
  return {
    workersDev: Object.entries(deployed.subdomains).map(([account, subdomain]) => ({ account, subdomain, scripts: byAccount.get(account) ?? [] })),
    zones: deployed.zones.map((zone) => ({ id: zone.id, name: zone.name, account: zone.account_id, routes: zone.routes.map(({ pattern, script }) => ({ pattern, script })) })),
  };
}

/** The routes, plus each zone of `zones` that no route names (its requests go to its origin). */
export function withZones(routes: EdgeRoutes, zones: EdgeRoutes['zones']): EdgeRoutes {
  const routed = new Set(routes.zones.map((zone) => zone.id));
  return { ...routes, zones: [...routes.zones, ...zones.filter((zone) => !routed.has(zone.id))] };
}

export interface Following {
  /** Stops polling (a change being applied finishes). */
  stop(): Promise<void>;
}

/**
 * Applies what is deployed now, then follows changes. A failed read is reported and tried again
 * at the next poll; what serves stays as it was meanwhile.
 */
export async function followDeployments(options: {
  reader: DeploymentsReader;
  runtime: WorkersRuntime;
  setRoutes: (routes: EdgeRoutes) => void;
  /** The cron triggers of what is deployed, handed on once the runtime runs it. */
  setCrons?: (deployed: DeployedWorkers) => void;
  report: (line: string) => void;
  pollMs?: number;
}): Promise<Following> {
  const { reader, runtime, setRoutes, report } = options;
  let applied = -1;
  const apply = async () => {
    const marker = await reader.changeMarker();
    if (marker === applied) return;
    const snapshot = await reader.snapshot();
    await runtime.apply(snapshot);
    setRoutes(edgeRoutesOf(snapshot));
    options.setCrons?.(snapshot);
    applied = snapshot.marker;
  };
  await apply();
  let stopped = false;
  let running: Promise<void> | undefined;
  let failing = false;
  // A database out of reach is told once by the process's storage health (lost, then back);
  // the edge keeps quiet about it rather than tell the same outage twice.
  let quiet = false;
  const timer = setInterval(() => {
    // One poll at a time: a change being started is not read again meanwhile.
    if (stopped || running) return;
    running = apply()
      .then(
        () => {
          if (failing && !quiet) report('reading what is deployed works again');
          failing = false;
        },
        (error: unknown) => {
          if (!failing) {
            quiet = error instanceof StoreUnavailableError;
            if (!quiet) report(`cannot read what is deployed (tried again every ${options.pollMs ?? POLL_MS} ms): ${error instanceof Error ? error.message : String(error)}`);
          }
          failing = true;
        },
      )
      .finally(() => (running = undefined));
  }, options.pollMs ?? POLL_MS);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
