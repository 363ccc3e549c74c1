// Slow and many clients on every port of the platform (`npm start`: the API, the S3 endpoint, the
// edge, a worker): well-behaved clients' rate while 2,000 slow connections are held open against the same
// port (a third half a request line, a third nothing, a third a header trickled a byte a second,
// each opened again when the server cuts it), against their rate on the idle port measured in the
// same run (rounds alternating the two, medians compared), and the platform's CPU time per
// request both ways (the rate its own work allows, which other load on the machine does not
// move as it moves elapsed time), and the platform's memory meanwhile;
// then the swarm is held past the headers timeout to count the connections the server cuts.
// Targets: >= 0.8 of the unloaded rate, memory within +100 MiB. The well-behaved client is
// autocannon (10 keep-alive connections) in this process; the slow ones come from a child
// process of their own (support/slow-client-swarm.ts); the platform runs in a third. Run:
// `npm run bench -- slow-clients` (about 3 minutes).
import { PutObjectCommand, CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { memoryField, resetPeakMemory } from '../../test/support/process-memory';
import { root } from '../tools';
import { round } from './support/measure';
import { readyLine } from './support/ready-line';

const SLOW_CONNECTIONS = 2_000;
const MEASURE_SECONDS = 4;
const ROUNDS = 3;
const GOOD_CONNECTIONS = 10;
const TARGET_RATIO = 0.8;
const TARGET_MEMORY_MIB = 100;
const TOKEN = 'bench-token-0123456789abcdefghijklmnopqrst';
const KEYS = { S3_ACCESS_KEY_ID: 'benchkey', S3_SECRET_ACCESS_KEY: 'bench-secret-0123456789' };
const PRO_ZONE = '9d6991f5ca85bf43524971c922c4bcfc';
const SWARM = fileURLToPath(new URL('./support/slow-client-swarm.ts', import.meta.url));
const MiB = 1024 * 1024;

interface Platform {
  child: ChildProcess;
  pid: number;
  urls: Record<string, string>;
}

async function startPlatform(cwd: string): Promise<Platform> {
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'start.mjs')], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', API_TOKEN: TOKEN, LOG_LEVEL: 'warn', ...KEYS },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const { match: ready, output } = await readyLine(child, 'the platform');
  const urls = Object.fromEntries([...output.matchAll(/^ {2}(api|s3|edge|worker:\S+) +(http:\/\/\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  return { child, pid: Number(ready[2]), urls };
}

/** CPU seconds (user + system) the process has used: work, which a loaded machine does not inflate as it does elapsed time. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ').map(Number);
  return (fields[11]! + fields[12]!) / 100;
}

/**
 * Requests per second autocannon gets from `url` over MEASURE_SECONDS, and the platform's CPU
 * milliseconds per request meanwhile; answers other than `status` count as errors.
 */
async function rate(url: string, headers: Record<string, string>, status: number, pid: number): Promise<{ perSecond: number; cpuMsPerRequest: number; errors: number }> {
  const cpuBefore = cpuSeconds(pid);
  const result = await autocannon({ url, connections: GOOD_CONNECTIONS, duration: MEASURE_SECONDS, headers });
  const cpuMsPerRequest = ((cpuSeconds(pid) - cpuBefore) * 1000) / Math.max(1, result.requests.total);
  const expected = (result.statusCodeStats as Record<string, { count: number }> | undefined)?.[String(status)]?.count ?? 0;
  return { perSecond: result.requests.average, cpuMsPerRequest, errors: result.errors + result.timeouts + (result.requests.total - expected) };
}

/** The swarm against `url`'s port; resolves once it holds `count` connections (or 10 s passed). */
async function startSwarm(url: string, count: number) {
  const { hostname, port } = new URL(url);
  const child = spawn(process.execPath, ['--import', 'tsx', SWARM, hostname, port, String(count)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const state = { open: 0, cut: 0 };
  child.stdout!.setEncoding('utf8').on('data', (text: string) => {
    for (const [, open, cut] of text.matchAll(/open (\d+) cut (\d+)/g)) Object.assign(state, { open: Number(open), cut: Number(cut) });
  });
  const deadline = Date.now() + 10_000;
  while (state.open < count * 0.95 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  return {
    state,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export async function run(): Promise<void> {
  const cwd = mkdtempSync(path.join(tmpdir(), 'slow-clients-'));
  writeFileSync(path.join(cwd, 'worker.mjs'), "export default { fetch: () => new Response('hello from the worker') };\n");
  writeFileSync(path.join(cwd, 'wrangler.toml'), 'name = "hello"\nmain = "worker.mjs"\ncompatibility_date = "2026-07-01"\n');
  writeFileSync(path.join(cwd, 'platform.toml'), '[s3]\npublic_read = ["bench"]\n\n[[workers]]\nconfig = "wrangler.toml"\n');
  const platform = await startPlatform(cwd);
  try {
    const s3 = new S3Client({
      endpoint: platform.urls.s3!,
      region: 'auto',
      forcePathStyle: true,
      credentials: { accessKeyId: KEYS.S3_ACCESS_KEY_ID, secretAccessKey: KEYS.S3_SECRET_ACCESS_KEY },
    });
    await s3.send(new CreateBucketCommand({ Bucket: 'bench' }));
    await s3.send(new PutObjectCommand({ Bucket: 'bench', Key: 'hello.txt', Body: 'hello from S3' }));
    s3.destroy();
    // The edge routes nothing here (no worker deployed): its well-behaved clients get the
    // platform's own answer for an unknown host, 530 (error code 1001), served as fast as any.
    const targets: { port: string; url: string; headers: Record<string, string>; status: number }[] = [
      { port: 'api', url: `${platform.urls.api}/zones/${PRO_ZONE}`, headers: { authorization: `Bearer ${TOKEN}` }, status: 200 },
      { port: 's3', url: `${platform.urls.s3}/bench/hello.txt`, headers: {}, status: 200 },
      { port: 'edge', url: `${platform.urls.edge}/`, headers: { host: 'nothing.example.com' }, status: 530 },
      { port: 'worker', url: `${platform.urls['worker:hello']}/`, headers: {}, status: 200 },
    ];
    console.log(`${SLOW_CONNECTIONS} slow connections per port, ${GOOD_CONNECTIONS} well-behaved keep-alive connections, ${ROUNDS} rounds of ${MEASURE_SECONDS} s idle and ${MEASURE_SECONDS} s with the swarm, medians (load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}, ${availableParallelism()} cores)`);
    console.log('port     unloaded/s  with slow/s  ratio  CPU ms/req idle  with slow  ratio  held open  cut in 12 s  errors  RSS before  peak RSS  growth');
    let worstRatio = Infinity;
    let worstCpuRatio = Infinity;
    let worstGrowth = 0;
    const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
    for (const target of targets) {
      await rate(target.url, target.headers, target.status, platform.pid); // warm-up
      const before = resetPeakMemory(platform.pid);
      // Rounds alternate the idle port and the port with the swarm, so that the machine's other
      // load (which swings from second to second here) falls on both alike; medians compared.
      const unloaded: number[] = [];
      const loaded: number[] = [];
      const cpuIdle: number[] = [];
      const cpuLoaded: number[] = [];
      let held = Infinity;
      let errors = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const idle = await rate(target.url, target.headers, target.status, platform.pid);
        unloaded.push(idle.perSecond);
        cpuIdle.push(idle.cpuMsPerRequest);
        const swarm = await startSwarm(target.url, SLOW_CONNECTIONS);
        held = Math.min(held, swarm.state.open);
        const measured = await rate(target.url, target.headers, target.status, platform.pid);
        loaded.push(measured.perSecond);
        cpuLoaded.push(measured.cpuMsPerRequest);
        errors += measured.errors;
        await swarm.stop();
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      // The swarm held past the headers timeout: the server cuts every slow connection (each is
      // opened again), which the well-behaved clients' rounds above did not wait for.
      const swarm = await startSwarm(target.url, SLOW_CONNECTIONS);
      await new Promise((resolve) => setTimeout(resolve, 12_000));
      const cut = swarm.state.cut;
      await swarm.stop();
      const peak = memoryField(platform.pid, 'VmHWM');
      const ratio = median(loaded) / median(unloaded);
      // The rate the platform's own work allows: requests per CPU second, with the swarm against without.
      const cpuRatio = median(cpuIdle) / median(cpuLoaded);
      const growth = (peak - before) / MiB;
      worstRatio = Math.min(worstRatio, ratio);
      worstCpuRatio = Math.min(worstCpuRatio, cpuRatio);
      worstGrowth = Math.max(worstGrowth, growth);
      console.log(
        `${target.port.padEnd(8)} ${round(median(unloaded)).padStart(10)}  ${round(median(loaded)).padStart(11)}  ${ratio.toFixed(2).padStart(5)}  ${median(cpuIdle).toFixed(3).padStart(15)}  ${median(cpuLoaded).toFixed(3).padStart(9)}  ${cpuRatio.toFixed(2).padStart(5)}  ${String(held).padStart(9)}  ${String(cut).padStart(11)}  ${String(errors).padStart(6)}  ${round(before / MiB).padStart(6)} MiB  ${round(peak / MiB).padStart(4)} MiB  ${round(growth).padStart(3)} MiB`,
      );
      console.log(`         rounds, unloaded: ${unloaded.map((n) => round(n)).join(', ')}; with slow: ${loaded.map((n) => round(n)).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
    console.log(
      `worst ratio ${worstRatio.toFixed(2)} (target >= ${TARGET_RATIO}: ${worstRatio >= TARGET_RATIO ? 'met' : 'NOT met'}); by the platform's CPU per request ${worstCpuRatio.toFixed(2)} (${worstCpuRatio >= TARGET_RATIO ? 'met' : 'NOT met'}); worst growth ${round(worstGrowth)} MiB (target <= ${TARGET_MEMORY_MIB} MiB: ${worstGrowth <= TARGET_MEMORY_MIB ? 'met' : 'NOT met'}); load average after ${loadavg().map((n) => n.toFixed(2)).join(' ')}`,
    );
  } finally {
    platform.child.kill('SIGTERM');
    await new Promise((resolve) => platform.child.once('exit', resolve));
    rmSync(cwd, { recursive: true, force: true });
  }
}
