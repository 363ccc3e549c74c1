// The platform on PostgreSQL while PostgreSQL restarts under load: clients with their default
// retries (the official SDK, the AWS SDK v3) see no failed call and lose no acknowledged write;
// an outage longer than the platform waits answers 503 with Retry-After on every face (the API's
// envelope, S3's SlowDown, the binding's 10043) and /readyz names the database; the log says
// once that the database was lost and once that it is back, with no stack per request.
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import Cloudflare, { toFile } from 'cloudflare';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBucketCatalogue } from '../../src/bucket';
import { startPlatform, temporaryDirectory, withFiles, type Platform } from '../platform/platform-process';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { ZONE_IDS } from '../store/contract/fixtures';

const TOKEN = 'restart-test-token';
const KEYS = { S3_ACCESS_KEY_ID: 'restartkey', S3_SECRET_ACCESS_KEY: 'restart-secret' };
const BUCKET = 'through-restarts';
const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
/** The same worker deployed through the API: it runs in workerd, its bucket through the platform's bucket service. */
const DEPLOYED_HOST = 'files-deployed.restarts.workers.dev';

/** A worker that answers what its binding threw, so the test reads the binding's error. */
const WORKER = `export default {
  async fetch(request, env) {
    const key = new URL(request.url).pathname.slice(1);
    try {
      if (request.method === 'PUT') {
        await env.FILES.put(key, await request.text());
        return new Response('stored', { status: 201 });
      }
      const object = await env.FILES.get(key);
      return object ? new Response(object.body) : new Response('no such key', { status: 404 });
    } catch (error) {
      return new Response(error.message, { status: 503 });
    }
  },
};
`;

let cluster: PostgresCluster;
let databaseUrl: string;

beforeAll(async () => {
  // Durable: a crash (stop -m immediate) keeps what the server acknowledged, as a real one does.
  cluster = await startPostgres({ durable: true });
  databaseUrl = await cluster.createDatabase('restart');
  // The worker's bucket exists before the platform starts, as its start requires.
  const catalogue = await openBucketCatalogue({ dataDir: temporaryDirectory(), databaseUrl });
  await catalogue.create(BUCKET);
  await catalogue.close();
});
afterAll(async () => {
  await cluster?.stop();
});

async function platformOnDatabase(env: Record<string, string> = {}): Promise<Platform> {
  const cwd = withFiles({
    'worker.mjs': WORKER,
    'wrangler.toml': `name = "files"\nmain = "worker.mjs"\ncompatibility_date = "2026-07-01"\n\n[[r2_buckets]]\nbinding = "FILES"\nbucket_name = "${BUCKET}"\n`,
    'platform.toml': '[[workers]]\nconfig = "wrangler.toml"\n',
  });
  return startPlatform(cwd, [], { PORT: '0', DATABASE_URL: databaseUrl, API_TOKEN: TOKEN, LOG_LEVEL: 'info', ...KEYS, ...env });
}

/** Clients as users make them: every retry setting left at its default. */
function clients(platform: Platform) {
  const s3 = new S3Client({
    endpoint: platform.urls.s3!,
    region: 'auto',
    forcePathStyle: true,
    credentials: { accessKeyId: KEYS.S3_ACCESS_KEY_ID, secretAccessKey: KEYS.S3_SECRET_ACCESS_KEY },
  });
  const cf = new Cloudflare({ baseURL: platform.urls.api!, apiToken: TOKEN, apiEmail: null, apiKey: null, userServiceKey: null });
  return { s3, cf };
}

/** Lines of the platform's output (its JSON log lines, the components' reports) that match. */
function logLines(platform: Platform, pattern: RegExp): string[] {
  return (platform.stdout() + platform.stderr()).split('\n').filter((line) => pattern.test(line));
}

describe('PostgreSQL restarted under load', () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await platformOnDatabase();
  });
  afterAll(async () => {
    await platform?.stop();
  });

  /** Writes and reads through the SDK and S3 from several callers while `outage` runs. */
  async function underLoad(tag: string, outage: () => Promise<void>) {
    const { s3, cf } = clients(platform);
    const failures: string[] = [];
    const stored: string[] = [];
    const jobs: string[] = [];
    let running = true;
    const fail = (what: string) => (error: unknown) => void failures.push(`${what}: ${error instanceof Error ? `${error.name} ${error.message}` : String(error)}`);
    const s3Writer = async (writer: number) => {
      for (let i = 0; running; i++) {
        const key = `${tag}/${writer}/${i}`;
        await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: `body of ${key}` })).then(() => stored.push(key), fail(`PUT ${key}`));
        if (stored.length > 0) {
          const read = stored[i % stored.length]!;
          await s3
            .send(new GetObjectCommand({ Bucket: BUCKET, Key: read }))
            .then(async (object) => expect(await object.Body!.transformToString()).toBe(`body of ${read}`), fail(`GET ${read}`));
        }
      }
    };
    const apiWriter = async () => {
      while (running) {
        await cf.logpush.jobs
          .create({ zone_id: ZONE_IDS.pro, destination_conf: `s3://logs/${tag}?region=us-east-1`, dataset: 'http_requests' })
          .then((job) => jobs.push(String(job!.id)), fail('create a log push job'));
        await cf.zones.get({ zone_id: ZONE_IDS.pro }).then(() => undefined, fail('get a zone'));
      }
    };
    const load = [s3Writer(0), s3Writer(1), s3Writer(2), apiWriter(), apiWriter()];
    await sleep(500);
    await outage();
    // Served again, for a while, before the load stops.
    await sleep(1500);
    running = false;
    await Promise.all(load);
    return { failures, stored, jobs, cf, s3 };
  }

  it('rides out a clean restart and a crash with 4 s down: no failed call, nothing acknowledged lost', { timeout: 120_000 }, async () => {
    const lostBefore = logLines(platform, /is unavailable/).length;
    const first = await underLoad('fast', async () => {
      await cluster.stopServer('fast');
      await sleep(1000);
      await cluster.startServer();
    });
    const second = await underLoad('crash', async () => {
      await cluster.stopServer('immediate');
      await sleep(4000);
      await cluster.startServer();
    });
    expect([...first.failures, ...second.failures]).toEqual([]);

    // Every acknowledged write is there.
    const keys: string[] = [];
    for (let token: string | undefined; ; ) {
      const page = await first.s3.send(new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken: token }));
      keys.push(...(page.Contents ?? []).map((object) => object.Key!));
      if (!page.IsTruncated) break;
      token = page.NextContinuationToken;
    }
    const acknowledged = [...first.stored, ...second.stored];
    expect(acknowledged.length).toBeGreaterThan(20);
    expect(acknowledged.filter((key) => !keys.includes(key))).toEqual([]);
    const listed = new Set<string>();
    for await (const job of first.cf.logpush.jobs.list({ zone_id: ZONE_IDS.pro })) listed.add(String(job!.id));
    const created = [...first.jobs, ...second.jobs];
    expect(created.length).toBeGreaterThan(5);
    expect(created.filter((id) => !listed.has(id))).toEqual([]);

    // Told once per outage, not per request or per pool, and no stack.
    expect(logLines(platform, /is unavailable/).length - lostBefore).toBe(2);
    expect(logLines(platform, /is available again/).length).toBe(logLines(platform, /is unavailable/).length);
    expect(logLines(platform, /"request failed"|^\s+at /)).toEqual([]);
  });
});

/** A PUT through the edge port with a Host of our choosing. */
function edgePut(platform: Platform, host: string, path: string, body: string): Promise<{ status: number; text: string }> {
  const url = new URL(platform.urls.edge!);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, path, method: 'PUT', headers: { host }, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, text }));
    });
    request.on('error', reject).end(body);
  });
}

describe('PostgreSQL down for longer than the platform waits', () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await platformOnDatabase({ DATABASE_CONNECT_TIMEOUT_MS: '500' });
    const { cf } = clients(platform);
    await cf.workers.subdomains.update({ account_id: ACCOUNT, subdomain: 'restarts' });
    await cf.workers.scripts.update('files-deployed', {
      account_id: ACCOUNT,
      metadata: { main_module: 'index.js', compatibility_date: '2026-07-01', bindings: [{ type: 'r2_bucket', name: 'FILES', bucket_name: BUCKET }] },
      files: [await toFile(Buffer.from(WORKER), 'index.js', { type: 'application/javascript+module' })],
    });
    await cf.workers.scripts.subdomain.create('files-deployed', { account_id: ACCOUNT, enabled: true });
    const started = Date.now();
    while ((await edgePut(platform, DEPLOYED_HOST, '/before', 'x')).status !== 201) {
      if (Date.now() - started > 10_000) throw new Error('the deployed worker did not serve within 10 s');
      await sleep(50);
    }
  }, 60_000);
  afterAll(async () => {
    await platform?.stop();
    await cluster.startServer().catch(() => undefined);
  });

  it('answers 503 with Retry-After on every face, /readyz names the database, and serves again once it is back', { timeout: 60_000 }, async () => {
    await cluster.stopServer('fast');
    try {
      const api = await fetch(`${platform.urls.api}/zones/${ZONE_IDS.pro}/logpush/jobs`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      expect(api.status).toBe(503);
      expect(api.headers.get('retry-after')).toBe('1');
      expect(await api.json()).toEqual({
        result: null,
        success: false,
        errors: [{ code: 10503, message: 'The service is temporarily unavailable: its database cannot be reached. Retry the request in a moment.' }],
        messages: [],
      });

      const s3 = new S3Client({
        endpoint: platform.urls.s3!,
        region: 'auto',
        forcePathStyle: true,
        credentials: { accessKeyId: KEYS.S3_ACCESS_KEY_ID, secretAccessKey: KEYS.S3_SECRET_ACCESS_KEY },
        maxAttempts: 1,
      });
      const refused = await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'during', Body: 'x' })).then(
        () => undefined,
        (error: unknown) => error as S3ServiceException,
      );
      expect(refused).toBeInstanceOf(S3ServiceException);
      expect(refused!.name).toBe('SlowDown');
      expect(refused!.$metadata.httpStatusCode).toBe(503);
      expect(refused!.message).toMatch(/^Please reduce your request rate: the storage is temporarily unavailable \(.+\); retry in a moment\.$/);
      expect((refused!.$response as { headers: Record<string, string> }).headers['retry-after']).toBe('1');

      const binding = await fetch(`${platform.urls['worker:files']}/during`, { method: 'PUT', body: 'x' });
      expect(binding.status).toBe(503);
      expect(await binding.text()).toMatch(/^put: The bucket's storage is temporarily unavailable \(.+\); retry in a moment\. \(10043\)$/);
      // The same from a worker deployed through the API, in workerd, reached through the edge.
      const deployedBinding = await edgePut(platform, DEPLOYED_HOST, '/during', 'x');
      expect(deployedBinding.status).toBe(503);
      expect(deployedBinding.text).toMatch(/^put: The bucket's storage is temporarily unavailable \(.+\); retry in a moment\. \(10043\)$/);

      const ready = await fetch(`${new URL(platform.urls.api!).origin}/readyz`);
      expect(ready.status).toBe(503);
      const readiness = (await ready.json()) as { ready: boolean; problems: { place: string; state: string; reason: string }[] };
      expect(readiness.ready).toBe(false);
      expect(readiness.problems).toEqual([expect.objectContaining({ place: databaseUrl, state: 'unavailable' })]);
    } finally {
      await cluster.startServer();
    }
    const { s3 } = clients(platform);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'after', Body: 'after' }));
    const ready = await fetch(`${new URL(platform.urls.api!).origin}/readyz`);
    expect(ready.status).toBe(200);
    expect(logLines(platform, /is unavailable/)).toHaveLength(1);
    expect(logLines(platform, /is available again/)).toHaveLength(1);
    expect(logLines(platform, /"request failed"|^\s+at /)).toEqual([]);
  });
});
