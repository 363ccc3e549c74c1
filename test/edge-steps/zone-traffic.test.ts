// A zone's traffic through `npm start`'s edge, driven by real clients: rules written with the
// official SDK judge requests sent with curl and undici, the zone's origin gets them with the
// platform's headers, and the log push job's files are read back with the AWS SDK and the API. Two platforms
// on one data directory see a change within a second; a SIGTERM loses no accepted entry. A worker
// deployed with wrangler on a route of the zone runs only for what the rules let through.
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import Cloudflare from 'cloudflare';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOME_ACCOUNT_ID, openBucketCatalogue } from '../../src/bucket';
import { openSqliteStore } from '../../src/store';
import { startPlatform, temporaryDirectory, withFiles, type Platform } from '../platform/platform-process';
import { wrangler } from '../server/api-process';
import { waitUntil } from '../support/wait';

const run = promisify(execFile);
const TOKEN = 'edge-test-token';
const KEY = { accessKeyId: 'EDGELOGKEY', secretAccessKey: 'edge-log-secret-value' };
const ZONE = '9d6991f5ca85bf43524971c922c4bcfc'; // example.org, the Pro zone (new WAF, OWASP at PL2, custom log fields)
const ACCOUNT = HOME_ACCOUNT_ID;
const CUSTOM = 'http_request_firewall_custom';

interface Seen {
  url: string;
  headers: IncomingMessage['headers'];
}

let origin: Server;
let originPort: number;
const seen: Seen[] = [];
let dataDir: string;
let platform: Platform;
let cf: Cloudflare;
let s3: S3Client;
let edge: URL;
const clients: Client[] = [];

function config(extra = ''): string {
  return `[api]\nport = 0\n[s3]\nport = 0\n[edge]\nport = 0\ntrusted_proxies = ["127.0.0.1", "::1"]\nlog_upload_seconds = 0.3\n
[[edge.origins]]\nhostname = "example.org"\nupstream = "http://127.0.0.1:${originPort}"\n
[[edge.origins]]\nhostname = "down.example.org"\nupstream = "http://127.0.0.1:1"\n
[[edge.clients]]\nrange = "203.0.113.0/24"\ncountry = "FR"\nasn = 64500\nbot_score = 2\n${extra}`;
}

const environment = { API_TOKEN: TOKEN, S3_ACCESS_KEY_ID: KEY.accessKeyId, S3_SECRET_ACCESS_KEY: KEY.secretAccessKey };

beforeAll(async () => {
  origin = createServer((request, response) => {
    seen.push({ url: request.url!, headers: request.headers });
    response.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' });
    response.end(`origin: ${request.url}`);
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  originPort = (origin.address() as AddressInfo).port;
  dataDir = temporaryDirectory();
  platform = await startPlatform(withFiles({ 'platform.toml': config() }, dataDir), [], environment);
  edge = new URL(platform.urls.edge!);
  cf = new Cloudflare({ apiToken: TOKEN, baseURL: platform.urls.api!, apiEmail: null, apiKey: null, userServiceKey: null, maxRetries: 0 });
  s3 = new S3Client({ endpoint: platform.urls.s3!, region: 'auto', forcePathStyle: true, credentials: KEY });
  await cf.r2.buckets.create({ account_id: ACCOUNT, name: 'edge-logs' });
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.destroy()));
  await platform?.stop();
  origin.closeAllConnections();
  await new Promise((resolve) => origin.close(resolve));
});

/** undici, which sends the Host and the path as given. */
async function send(path: string, headers: Record<string, string> = {}, method: 'GET' | 'POST' = 'GET', body?: string, to = edge) {
  const client = new Client(to.origin);
  clients.push(client);
  const answer = await client.request({ path, method, headers: { host: 'example.org', ...headers }, ...(body === undefined ? {} : { body }) });
  return { status: answer.statusCode, headers: answer.headers, text: await answer.body.text() };
}

/** curl, as a user types it: `curl -si -H 'Host: example.org' http://127.0.0.1:<edge>/path`. */
async function curl(path: string, ...headers: string[]): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const args = ['-si', '--path-as-is', ...headers.flatMap((header) => ['-H', header]), `${edge.origin}${path}`];
  const { stdout } = await run('curl', ['-H', 'Host: example.org', ...args]);
  const [head, ...rest] = stdout.split('\r\n\r\n');
  const lines = head!.split('\r\n');
  const found: Record<string, string> = {};
  for (const line of lines.slice(1)) found[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
  return { status: Number(lines[0]!.split(' ')[1]), headers: found, body: rest.join('\r\n\r\n') };
}

async function deployCustom(rules: { action: 'block' | 'managed_challenge' | 'log' | 'skip'; expression: string; description: string; action_parameters?: object }[]): Promise<string[]> {
  const entry = (await cf.rulesets.phases.update(CUSTOM, { zone_id: ZONE, rules } as never)) as { rules: { id?: string }[] };
  return entry.rules.map((rule) => rule.id!);
}

/** Every log line the job wrote so far under its path, read back through S3. */
async function logLines(prefix: string): Promise<Record<string, unknown>[]> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'edge-logs', Prefix: prefix }));
  const lines: Record<string, unknown>[] = [];
  for (const object of listed.Contents ?? []) {
    const file = await s3.send(new GetObjectCommand({ Bucket: 'edge-logs', Key: object.Key! }));
    const text = gunzipSync(Buffer.from(await file.Body!.transformToByteArray())).toString('utf8');
    lines.push(...text.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>));
  }
  return lines;
}

describe('a zone\'s rules judge its live traffic', () => {
  it('blocks with the platform\'s page and cf-ray, and passes the rest to the origin with the platform\'s headers', async () => {
    await deployCustom([{ action: 'block', expression: 'http.request.uri.path eq "/admin"', description: 'No admin' }]);
    await waitUntil('the rule to apply', async () => (await send('/admin')).status === 403, 2_000, 20);
    const blocked = await curl('/admin');
    expect(blocked.status).toBe(403);
    expect(blocked.headers['cf-ray']).toMatch(/^[0-9a-f]{16}-DFW$/);
    expect(blocked.headers['content-type']).toBe('text/html; charset=UTF-8');
    expect(blocked.body).toContain('Sorry, you have been blocked');
    expect(blocked.body).toContain(blocked.headers['cf-ray']);
    const passed = await send('/products?page=2', { 'cf-connecting-ip': '203.0.113.7' });
    expect(passed.status).toBe(200);
    expect(passed.text).toBe('origin: /products?page=2');
    expect(passed.headers['cf-ray']).toMatch(/^[0-9a-f]{16}-DFW$/);
    expect(seen.at(-1)!.headers).toMatchObject({
      host: 'example.org',
      'cf-connecting-ip': '203.0.113.7',
      'x-forwarded-for': '203.0.113.7',
      'x-forwarded-proto': 'http',
      'cf-visitor': '{"scheme":"http"}',
      'cf-ipcountry': 'FR',
      'cf-ray': passed.headers['cf-ray'],
    });
  });

  it('answers a rule\'s custom response, and challenges with cf-mitigated: challenge by what the table of clients says', async () => {
    await deployCustom([
      { action: 'block', expression: 'http.request.uri.path eq "/api/slow"', description: 'Slow down', action_parameters: { response: { status_code: 429, content_type: 'application/json', content: '{"error":"slow down"}' } } },
      { action: 'managed_challenge', expression: 'ip.src.country eq "FR" and cf.bot_management.score lt 30', description: 'Bots from FR' },
    ]);
    await waitUntil('the rules to apply', async () => (await send('/api/slow')).status === 429, 2_000, 20);
    const limited = await send('/api/slow');
    expect([limited.status, limited.headers['content-type'], limited.text]).toEqual([429, 'application/json', '{"error":"slow down"}']);
    expect(limited.headers['cf-ray']).toBeDefined();
    const challenged = await curl('/home', 'cf-connecting-ip: 203.0.113.9');
    expect(challenged.status).toBe(403);
    expect(challenged.headers['cf-mitigated']).toBe('challenge');
    // Another address is unknown to the table: no country, no bot score, no challenge.
    expect((await send('/home', { 'cf-connecting-ip': '198.51.100.4' })).status).toBe(200);
  });

  it('runs the OWASP ruleset with its overrides: the Pro zone challenges an attack over the threshold', async () => {
    await deployCustom([]);
    const attack = await send("/search?q=1'%20union%20select%20password%20from%20users--");
    expect(attack.status).toBe(403);
    expect(attack.headers['cf-mitigated']).toBe('challenge');
    const page = await cf.rulesets.phases.get('http_request_firewall_managed', { zone_id: ZONE });
    const execute = page.rules.find((rule) => rule.action === 'execute' && (rule.action_parameters as { id?: string }).id === '4814384a9e5d4991b9815dcfc25d2f1f')!;
    // Log instead of challenging: the same attack now reaches the origin.
    await cf.rulesets.rules.edit(execute.id!, {
      ruleset_id: page.id,
      zone_id: ZONE,
      action: 'execute',
      expression: 'true',
      action_parameters: { id: '4814384a9e5d4991b9815dcfc25d2f1f', overrides: { rules: [{ id: '6179ae15870a4bb7b2d480d4843b323c', action: 'log', score_threshold: 25 }] } },
    } as never);
    await waitUntil('the override to apply', async () => (await send("/search?q=1'%20union%20select%20password%20from%20users--")).status === 200, 2_000, 20);
  });

  it('answers 500 with cf-ray, never passing it on, when a stored rule cannot be evaluated', async () => {
    // What a state file from another version could hold: the API refuses this expression.
    const store = await openSqliteStore({ dataDir: `${dataDir}/data` });
    try {
      await store.rulesets.putEntryPoint({ zone_id: ZONE }, CUSTOM, { rules: [{ action: 'block', expression: 'http.request.uri.path eq', description: 'Broken' }] });
    } finally {
      await store.close();
    }
    await waitUntil('the broken rule to be read', async () => (await send('/anything')).status === 500, 2_000, 20);
    const before = seen.length;
    const answer = await send('/anything');
    expect(answer.status).toBe(500);
    expect(answer.headers['cf-ray']).toBeDefined();
    expect(answer.text).toContain('could not evaluate the rules');
    expect(seen.length).toBe(before);
    expect(platform.stderr()).toContain('cannot be evaluated');
    await deployCustom([]);
    await waitUntil('the rules to be sound again', async () => (await send('/anything')).status === 200, 2_000, 20);
  });
});

describe('a worker on a route of the zone', () => {
  it('runs, deployed with wrangler, only for what the rules let through; a block never reaches it', async () => {
    const project = path.join(temporaryDirectory(), 'shop');
    mkdirSync(project, { recursive: true });
    writeFileSync(
      path.join(project, 'index.js'),
      'export default { fetch: (request) => new Response(`worker: ${new URL(request.url).pathname} from ${request.headers.get("cf-connecting-ip")} in ${request.cf?.country}`) };\n',
    );
    writeFileSync(path.join(project, 'wrangler.toml'), 'name = "shop"\nmain = "index.js"\ncompatibility_date = "2026-07-01"\nroutes = [{ pattern = "example.org/shop/*", zone_name = "example.org" }]\n');
    const deployed = await wrangler(['deploy'], { CLOUDFLARE_API_BASE_URL: platform.urls.api!, CLOUDFLARE_API_TOKEN: TOKEN, CLOUDFLARE_ACCOUNT_ID: ACCOUNT }, project);
    expect(deployed.code, deployed.output).toBe(0);
    await deployCustom([{ action: 'block', expression: 'starts_with(http.request.uri.path, "/shop/admin")', description: 'No shop admin' }]);
    await waitUntil('the worker to apply', async () => (await send('/shop/cart')).text.startsWith('worker:'), 5_000, 50);
    await waitUntil('the rule to apply', async () => (await send('/shop/admin/users')).status === 403, 2_000, 20);
    const served = await send('/shop/cart', { 'cf-connecting-ip': '203.0.113.7' });
    expect([served.status, served.text]).toEqual([200, 'worker: /shop/cart from 203.0.113.7 in FR']);
    expect(served.headers['cf-ray']).toMatch(/^[0-9a-f]{16}-DFW$/);
    const before = seen.length;
    const blocked = await curl('/shop/admin/users');
    expect(blocked.status).toBe(403);
    expect(blocked.body).toContain('Sorry, you have been blocked');
    expect(blocked.body).not.toContain('worker:');
    // The rest of the zone still goes to its origin.
    expect((await send('/about')).text).toBe('origin: /about');
    expect(seen.length).toBe(before + 1);
    await deployCustom([]);
  });
});

describe('what the edge refuses before any rule runs, and origins that fail', () => {
  it('answers 400, 414, 431 and 413 with the platform\'s pages and cf-ray', async () => {
    const raw = (text: string) =>
      new Promise<string>((resolve) => {
        const socket = net.connect(Number(edge.port), edge.hostname, () => socket.end(text));
        let answer = '';
        socket.setEncoding('latin1').on('data', (chunk: string) => (answer += chunk));
        socket.on('close', () => resolve(answer));
      });
    const malformed = await raw('GET / HTTP/1.1\r\nHost example.org\r\n\r\n');
    expect(malformed).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(malformed).toMatch(/\r\ncf-ray: [0-9a-f]{16}-DFW\r\n/);
    expect((await send(`/${'a'.repeat(33 * 1024)}`)).status).toBe(414);
    expect((await send('/', Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`x-big-${i}`, 'b'.repeat(15 * 1024)])))).status).toBe(431);
    const tooLarge = await raw(`POST /upload HTTP/1.1\r\nHost: example.org\r\nContent-Length: ${101 * 1024 * 1024}\r\nConnection: close\r\n\r\n`);
    expect(tooLarge).toMatch(/^HTTP\/1\.1 413 /);
    expect(tooLarge).toContain('cf-ray: ');
  });

  it('answers 521 for an origin that refuses the connection', async () => {
    const down = await send('/', { host: 'down.example.org' });
    expect(down.status).toBe(521);
    expect(down.text).toContain('Web server is down');
    expect(down.headers['cf-ray']).toBeDefined();
  });
});

describe('log push to a bucket of the platform', () => {
  it('writes each request\'s entry, with the rule that decided and the custom fields, readable through S3 and the API', async () => {
    const job = await cf.logpush.jobs.create({
      zone_id: ZONE,
      name: 'edge-to-r2',
      enabled: true,
      destination_conf: `r2://edge-logs/http/{DATE}?account-id=${ACCOUNT}&access-key-id=${KEY.accessKeyId}&secret-access-key=${KEY.secretAccessKey}`,
      logpull_options: 'fields=RayID,ClientIP,ClientCountry,ClientRequestPath,EdgeResponseStatus,SecurityAction,SecurityRuleID,SecurityRuleDescription,RequestHeaders,Cookies&timestamps=rfc3339',
    } as never);
    const [ruleId] = await deployCustom([{ action: 'block', expression: 'http.request.uri.path eq "/wp-login.php"', description: 'No WordPress here' }]);
    await waitUntil('the rule and the job to apply', async () => (await send('/wp-login.php')).status === 403, 2_000, 20);
    const blocked = await curl('/wp-login.php', 'cf-connecting-ip: 203.0.113.7', 'x-request-id: r-1', `x-request-id: ${'r'.repeat(10_000)}`, 'Cookie: sessionId=abc; other=1');
    const rayId = blocked.headers['cf-ray']!.split('-')[0];
    await waitUntil('the entry to be written', async () => (await logLines('http/')).some((line) => line.RayID === rayId), 5_000, 50);
    const entry = (await logLines('http/')).find((line) => line.RayID === rayId);
    expect(entry).toEqual({
      RayID: rayId,
      ClientIP: '203.0.113.7',
      ClientCountry: 'fr',
      ClientRequestPath: '/wp-login.php',
      EdgeResponseStatus: 403,
      SecurityAction: 'block',
      SecurityRuleID: ruleId,
      SecurityRuleDescription: 'No WordPress here',
      // The seed's custom fields of the zone: only the first of a repeated header.
      RequestHeaders: { 'x-request-id': 'r-1' },
      Cookies: { sessionId: 'abc' },
    });
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'edge-logs', Prefix: 'http/' }));
    expect(listed.Contents![0]!.Key).toMatch(/^http\/\d{8}\/\d{8}T\d{6}Z_\d{8}T\d{6}Z_[0-9a-f]{8}\.log\.gz$/);
    // The same files through the management API's bucket objects.
    const headers = { authorization: `Bearer ${TOKEN}` };
    const listing = await fetch(`${platform.urls.api}/accounts/${ACCOUNT}/r2/buckets/edge-logs/objects?prefix=${encodeURIComponent('http/')}`, { headers });
    const listingText = await listing.text();
    expect(listing.status, listingText).toBe(200);
    const objects = JSON.parse(listingText) as { result: { key: string }[] };
    expect(objects.result.map((object) => object.key).sort()).toEqual(listed.Contents!.map((object) => object.Key).sort());
    const keys = objects.result.map((object) => object.key);
    let throughApi = '';
    for (const key of keys) {
      const file = await fetch(`${platform.urls.api}/accounts/${ACCOUNT}/r2/buckets/edge-logs/objects/${encodeURIComponent(key)}`, { headers });
      expect(file.status).toBe(200);
      const bytes = Buffer.from(await file.arrayBuffer());
      // fetch undoes a Content-Encoding: gzip itself; otherwise the bytes are the gzip file.
      throughApi += bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
    }
    expect(throughApi).toContain(`"RayID":"${rayId}"`);
    // And through the bucket binding (the API a worker reads with), from another process's handle on the same data directory.
    const catalogue = await openBucketCatalogue({ dataDir: path.join(dataDir, 'data') });
    try {
      const bucket = await catalogue.open('edge-logs');
      let throughBinding = '';
      for (const key of keys) throughBinding += gunzipSync(Buffer.from(await (await bucket.get(key))!.arrayBuffer())).toString('utf8');
      expect(throughBinding).toBe(throughApi);
    } finally {
      await catalogue.close();
    }
    const recorded = await cf.logpush.jobs.get(job!.id!, { zone_id: ZONE });
    expect(recorded).toMatchObject({ last_error: null, error_message: null });
    expect(recorded!.last_complete).not.toBeNull();
    // The seed's job to an s3:// destination is reported failing, never silently dropped.
    const outside = await cf.logpush.jobs.get(1, { zone_id: ZONE });
    expect(outside!.error_message).toContain('this platform delivers logs only to its own buckets');
    expect(platform.stderr()).not.toContain(KEY.secretAccessKey);
  });
});

describe('several platforms on one database', () => {
  it('applies a change made through one within a second on the other, and a SIGTERM loses no accepted entry', async () => {
    const second = await startPlatform(withFiles({ 'platform.toml': config().replace('log_upload_seconds = 0.3', 'log_upload_seconds = 60') }, dataDir), [], environment);
    try {
      const otherEdge = new URL(second.urls.edge!);
      await deployCustom([]);
      await waitUntil('the second edge to pass /moved', async () => (await send('/moved', {}, 'GET', undefined, otherEdge)).status === 200, 2_000, 20);
      const written = Date.now();
      await deployCustom([{ action: 'block', expression: 'http.request.uri.path eq "/moved"', description: 'Moved' }]);
      await waitUntil('the second edge to block /moved', async () => (await send('/moved', {}, 'GET', undefined, otherEdge)).status === 403, 1_500, 10);
      expect(Date.now() - written).toBeLessThan(1_500);
      // Entries the second platform took are in a batch it would write a minute later: a SIGTERM writes it now.
      const last = await send('/moved?last', {}, 'GET', undefined, otherEdge);
      const rayId = String(last.headers['cf-ray']).split('-')[0];
      expect(await second.stop('SIGTERM')).toBe(0);
      expect((await logLines('http/')).some((line) => line.RayID === rayId)).toBe(true);
    } finally {
      if (second.child.exitCode === null) await second.stop('SIGKILL');
    }
  });

  it('loses at most the open batch to a kill -9: every file written before is whole, no entry twice', async () => {
    const third = await startPlatform(withFiles({ 'platform.toml': config() }, dataDir), [], environment);
    try {
      const thirdEdge = new URL(third.urls.edge!);
      await deployCustom([]);
      const rayOf = async (path: string) => String((await send(path, {}, 'GET', undefined, thirdEdge)).headers['cf-ray']).split('-')[0]!;
      const delivered: string[] = [];
      for (let i = 0; i < 20; i++) delivered.push(await rayOf(`/before-kill/${i}`));
      await waitUntil('the first entries to be written', async () => {
        const rays = new Set((await logLines('http/')).map((line) => line.RayID));
        return delivered.every((ray) => rays.has(ray));
      }, 5_000, 50);
      // Taken, then the process killed before its 0.3 s batch is due: that batch may be lost, nothing else.
      for (let i = 0; i < 5; i++) await rayOf(`/at-kill/${i}`);
      await third.stop('SIGKILL');
      // Every file reads whole (logLines gunzips and parses each line), every delivered entry once.
      const rays = (await logLines('http/')).map((line) => String(line.RayID));
      expect(delivered.filter((ray) => rays.filter((seen) => seen === ray).length !== 1)).toEqual([]);
      expect(new Set(rays).size).toBe(rays.length);
    } finally {
      if (third.child.exitCode === null) await third.stop('SIGKILL');
    }
  });
});
