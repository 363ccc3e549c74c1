// `npm run profile -- <workload>`: where the server's CPU goes under one workload of
// `npm run bench -- server` ("GET ruleset", "GET entry point" or "PATCH rule"; default the PATCH).
// The full server (request validation on, as `npm start` runs) runs in a child process under
// `--cpu-prof` while autocannon drives it from this one; the profile is written to `profiles/`
// (open it in a browser's developer tools, Performance panel, or any `.cpuprofile` viewer for the
// flame graph) and summarised here: each sample goes to the first part of the stack, from the
// innermost frame out, that one of the categories below claims.
import { fork } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { basePath } from '../src/server/http/openapi-document';
import { CONNECTIONS, patchIds, TOKEN, WORKLOADS, workloads, type WorkloadName } from './bench/server';
import { root } from './tools';

const WARM_UP_SECONDS = 2;
const MEASURE_SECONDS = 8;

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
}

/** First match wins, from the innermost frame out; order matters where code calls code. */
const CATEGORIES: [string, (frame: CallFrame) => boolean][] = [
  ['JSON encoding (answers, version snapshots)', (f) => /^(envelopeText|frozenJson|toJson|stringify)$/.test(f.functionName)],
  ['validator (express-openapi-validator, Ajv)', (f) => /express-openapi-validator|\/ajv\/|ajv-formats/.test(f.url)],
  ['execute-reference checks', (f) => f.functionName === 'checkExecute'],
  ['rules language (expressions)', (f) => /src\/filter\//.test(f.url)],
  ['other rule checks', (f) => /src\/server\/rules\//.test(f.url)],
  ['authentication (token hashing included)', (f) => /src\/server\/auth\//.test(f.url) || f.url.startsWith('node:internal/crypto')],
  ['SQLite statements', (f) => /better-sqlite3|src\/store\/sqlite\/|sqlite-driver/.test(f.url)],
  ['query builder (Kysely)', (f) => /node_modules\/kysely/.test(f.url)],
  ['store (repositories, transactions, caches)', (f) => /src\/store\//.test(f.url)],
  ['handlers', (f) => /src\/server\/(handlers|waf|logpush)\//.test(f.url)],
  ['server HTTP layer (routing, envelope)', (f) => /src\/server\/(http\/|app\.ts)/.test(f.url)],
  ['Express, router, body parsing', (f) => /node_modules\/(express|router|body-parser|raw-body|finalhandler|send|on-finished|qs|content-type|type-is|parseurl)/.test(f.url)],
  // The send's system call shows as a native frame of its own: write (text) or writev (bytes).
  ["Node HTTP and sockets (the send's write included)", (f) => /^node:/.test(f.url) || /^(writev|writeUtf8String|writeBuffer|writeLatin1String)$/.test(f.functionName)],
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
];

function summarise(profile: CpuProfile): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  // Start-up (compiling, migrating, seeding) is not the workload: count from the first handler sample.
  const inHandler = (id: number) => {
    for (let node = byId.get(id); node; node = byId.get(parent.get(node.id)!)) if (/src\/server\/handlers\//.test(node.callFrame.url)) return true;
    return false;
  };
  const first = Math.max(0, profile.samples.findIndex(inHandler));
  const counts = new Map<string, number>();
  let busy = 0;
  for (const id of profile.samples.slice(first)) {
    if (byId.get(id)!.callFrame.functionName === '(idle)') continue;
    busy += 1;
    let category = 'other';
    for (let node = byId.get(id); node; node = byId.get(parent.get(node.id)!)) {
      const hit = CATEGORIES.find(([, claims]) => claims(node!.callFrame));
      if (hit) {
        category = hit[0];
        break;
      }
    }
    counts.set(category, (counts.get(category) ?? 0) + 1);
  }
  console.log(`share of the busy samples (${busy}):`);
  for (const [name, count] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`  ${((100 * count) / busy).toFixed(1).padStart(5)}%  ${name}`);
}

const workload = (process.argv[2] ?? 'PATCH rule') as WorkloadName;
if (!WORKLOADS.includes(workload)) {
  console.error(`unknown workload "${workload}"; one of: ${WORKLOADS.map((name) => `"${name}"`).join(', ')}`);
  process.exit(2);
}
const outDir = path.join(root, 'profiles');
mkdirSync(outDir, { recursive: true });
const before = new Set(readdirSync(outDir));
const child = fork(path.join(root, 'scripts/bench/server.ts'), ['--serve', 'validated'], {
  cwd: root,
  execArgv: ['--import', 'tsx', '--cpu-prof', `--cpu-prof-dir=${outDir}`],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const port = await new Promise<number>((resolve, reject) => {
  child.once('message', (message) => resolve((message as { port: number }).port));
  child.once('exit', (code) => reject(new Error(`the server exited (code ${code}) before listening`)));
});
const base = `http://127.0.0.1:${port}${basePath}`;
const requests = workloads(await patchIds(base))[workload].map((request) => ({ ...request, path: `${basePath}${request.path}` }));
const drive = (duration: number) =>
  autocannon({ url: `http://127.0.0.1:${port}`, connections: CONNECTIONS, duration, headers: { authorization: `Bearer ${TOKEN}` }, requests });
await drive(WARM_UP_SECONDS);
const result = await drive(MEASURE_SECONDS);
child.disconnect();
await new Promise((resolve) => child.once('exit', resolve));
const written = readdirSync(outDir).filter((file) => !before.has(file) && file.endsWith('.cpuprofile'));
if (written.length !== 1) throw new Error(`expected one new profile in ${outDir}, found ${written.length}`);
const file = path.join(outDir, written[0]!);
console.log(`${workload}: ${Math.round(result.requests.average).toLocaleString('en-US')} req/s under the profiler, ${result.non2xx} non-2xx; profile ${path.relative(root, file)}`);
summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
