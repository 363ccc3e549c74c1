/**
 * What the platform hands the edge for zones' traffic: the judgment of each request by the zone's
 * deployed rules (kept live from the store, refreshed within a poll of a change), the zones'
 * origins, and the log entries delivered by the zones' log push jobs. It opens a store and a bucket
 * catalogue of its own on the platform's state, so that it closes in its own order on a stop: the
 * edge's requests in flight first, then the log batches still open, then the store.
 */
import { HOME_ACCOUNT_ID, openBucketCatalogue, type BucketCatalogue } from '../bucket';
import type { EdgeRoutes, EdgeStages } from '../edge';
import { judgeStep, logStep, originStep } from '../edge-steps';
import { ClientTable, LiveDeployments, TrustedProxies } from '../judge';
import { BucketCredentials, LogDelivery } from '../logpush';
import { OriginTable } from '../origin';
import { openServerBuckets, openServerStore, type ServerConfig } from '../server';
import { loadSecretBox, MAX_PER_PAGE, openPostgresStore, openSqliteStore, SECRETS_KEY_VARIABLE, StoreUnavailableError, type Store } from '../store';
import type { EdgeSettings, PlatformSettings } from './settings';

export interface EdgeJudging {
  stages: EdgeStages;
  /** Every zone of the store (zones are seeded, never created at run time), with no workers route. */
  zones: EdgeRoutes['zones'];
  /** Writes the log batches still open, stops refreshing, closes the store and the buckets. */
  close(): Promise<void>;
}

export interface EdgeJudgingOptions {
  edge: EdgeSettings;
  settings: Pick<PlatformSettings, 'dataDir' | 'databaseUrl' | 's3'>;
  /** The API's configuration, when it runs: the store and buckets are opened as it opens them (seed, pools). */
  apiConfig: ServerConfig | undefined;
  report: (line: string) => void;
}

export async function prepareEdgeJudging(options: EdgeJudgingOptions): Promise<EdgeJudging> {
  const { edge, settings, apiConfig, report } = options;
  // The key log push destinations are sealed with, as the API is given it (or the data directory's).
  const secrets = () => loadSecretBox({ dataDir: settings.dataDir, variable: process.env[SECRETS_KEY_VARIABLE] });
  const store = await (apiConfig
    ? openServerStore(apiConfig)
    : settings.databaseUrl
      ? openPostgresStore({ connectionString: settings.databaseUrl, secrets: secrets() })
      : openSqliteStore({ dataDir: settings.dataDir, secrets: secrets() }));
  let catalogue: BucketCatalogue | undefined;
  let deployments: LiveDeployments | undefined;
  try {
    catalogue = await (apiConfig ? openServerBuckets(apiConfig) : openBucketCatalogue({ dataDir: settings.dataDir, ...(settings.databaseUrl ? { databaseUrl: settings.databaseUrl } : {}) }));
    // A database out of reach is told once by the process's storage health (lost, then back),
    // not again at every refresh that meets it.
    deployments = new LiveDeployments(store, {
      onRefreshError: (error) => {
        if (!(error instanceof StoreUnavailableError)) report(`the rules could not be refreshed: ${error instanceof Error ? error.message : String(error)}`);
      },
    });
    await deployments.start();
    const delivery = new LogDelivery({
      store,
      catalogue,
      credentials: settings.s3 ? new BucketCredentials(settings.s3.accessKeys, settings.s3.account ?? HOME_ACCOUNT_ID) : null,
      uploadIntervalMs: edge.logUploadMs,
      onFailure: (job, message) => report(`log push job ${job.id} of zone ${job.zoneId}: ${message}`),
    });
    const live = deployments;
    const buckets = catalogue;
    return {
      stages: {
        before: [judgeStep({ deployments: live, proxies: new TrustedProxies(edge.trustedProxies), clients: new ClientTable(edge.clients), report })],
        origin: originStep(new OriginTable(edge.origins)),
        after: [logStep(delivery)],
      },
      zones: await zoneRoutes(store),
      close: async () => {
        await delivery.close();
        await live.close();
        await Promise.all([store.close(), buckets.close()]);
      },
    };
  } catch (error) {
    await deployments?.close();
    await Promise.allSettled([store.close(), catalogue?.close()]);
    throw error;
  }
}

/** Every zone of the store, by name, with no workers route yet. */
async function zoneRoutes(store: Store): Promise<EdgeRoutes['zones']> {
  const zones: EdgeRoutes['zones'] = [];
  for (let page = 1; ; page++) {
    const { items, result_info } = await store.zones.list({}, { page, per_page: MAX_PER_PAGE });
    zones.push(...items.map((zone) => ({ id: zone.id, name: zone.name, account: zone.account.id, routes: [] })));
    if (page >= result_info.total_pages) return zones;
  }
}
