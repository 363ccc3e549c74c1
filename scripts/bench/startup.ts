// Start-up of the management API server: from the command to the first answered API request, on
// a new data directory (migrations and the fixtures written) and on a restart over it, as users
// type it (`npm start`, npm's own start-up included), as it runs (`node scripts/start.mjs`, which
// checks the bundle is current) and as the bundle alone (`node dist/platform/main.mjs`).
// Baselines in the same run, measured between the server's starts: the same measurement of plain
// node serving one request with node:http, the least any Node server can take here, and of
// `npm start` running that plain node in an otherwise empty project (npm's own start-up).
// Targets: `node scripts/start.mjs` within 3x plain node, on a new data directory and on a
// restart; `npm start` at most 0.1 s more than the bundle started directly.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../test/support/ports';
import { root } from '../tools';
import { startPoller, type Command, type Poller } from './support/first-answer';

const RUNS = 5;
/** `node scripts/start.mjs` against plain node. */
const TARGET_TIMES_NODE = 3;
/** What `npm start` may add to starting the bundle directly. */
const TARGET_NPM_MS = 100;
const TOKEN = 'bench-token-0123456789abcdefghijklmnopqrst';
const PRO_ZONE = '9d6991f5ca85bf43524971c922c4bcfc';

const NODE_START: Command = [process.execPath, 'scripts/start.mjs'];
const BUNDLE_START: Command = [process.execPath, 'dist/platform/main.mjs'];

/**
 * `npm start` as users type it. Under `npm run bench` npm names its own script (npm_execpath):
 * run by this same node, as the `npm` on the PATH would be; otherwise the `npm` on the PATH.
 */
function npmStart(): Command {
  const npmCli = process.env.npm_execpath;
  return npmCli && /\.[cm]?js$/.test(npmCli) ? [process.execPath, npmCli, 'start'] : ['npm', 'start'];
}

/** Milliseconds from spawning `command` until GET `url` answers 200, as the poller sees it from outside. */
async function timeToFirstAnswerOf(poller: Poller, command: Command, env: NodeJS.ProcessEnv, url: (port: number) => string, cwd = root): Promise<number> {
  const port = await freePort();
  // The S3 endpoint and the edge on free ports of their own: their defaults, the ports after PORT,
  // may be taken on a busy machine.
  const portsEnv = { ...env, PORT: String(port), S3_PORT: '0', EDGE_PORT: '0' };
  return poller.timeToFirstAnswer({ command, env: portsEnv, cwd, url: url(port), headers: { authorization: `Bearer ${TOKEN}` } });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (value: number) => `${Math.round(value).toLocaleString('en-US')} ms`;

export async function run(): Promise<void> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'startup-bench-'));
  const poller = startPoller();
  const timeToFirstAnswer = (command: Command, env: NodeJS.ProcessEnv, url: (port: number) => string, cwd = root) =>
    timeToFirstAnswerOf(poller, command, env, url, cwd);
  try {
    const floorScript = path.join(scratch, 'floor.mjs');
    writeFileSync(floorScript, "import http from 'node:http'; http.createServer((q, s) => s.end('{}')).listen(Number(process.env.PORT), '127.0.0.1');\n");
    const quiet = { ...process.env, LOG_LEVEL: 'warn', API_TOKEN: TOKEN };
    const apiUrl = (port: number) => `http://127.0.0.1:${port}/client/v4/zones/${PRO_ZONE}`;
    const floorUrl = (port: number) => `http://127.0.0.1:${port}/`;
    const floorStart = () => timeToFirstAnswer([process.execPath, floorScript], quiet, floorUrl);
    // npm's own share of `npm start`: the same command in a project whose start script is plain node.
    writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'floor', private: true, scripts: { start: 'node floor.mjs' } }));

    // The first start also brings the bundle up to date and fills its compile cache; it is not counted.
    await timeToFirstAnswer(NODE_START, { ...quiet, DATA_DIR: path.join(scratch, 'warm') }, apiUrl);
    const npm = npmStart();
    const rows: [string, Command | null, number[]][] = [
      ['npm start, new data directory', npm, []],
      ['npm start, restart', npm, []],
      ['node scripts/start.mjs, new data directory', NODE_START, []],
      ['node scripts/start.mjs, restart', NODE_START, []],
      ['node dist/platform/main.mjs, new data directory', BUNDLE_START, []],
      ['node dist/platform/main.mjs, restart', BUNDLE_START, []],
    ];
    const floor: number[] = [];
    const npmFloor: number[] = [];
    console.log(`${availableParallelism()} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the start`);
    for (let i = 0; i < RUNS; i += 1) {
      // Each command starts once on a new data directory of its own, then again over it; plain
      // node starts between the commands, so a busy minute costs both alike.
      for (let row = 0; row < rows.length; row += 2) {
        const env = { ...quiet, DATA_DIR: path.join(scratch, `data-${row}-${i}`) };
        rows[row]![2].push(await timeToFirstAnswer(rows[row]![1]!, env, apiUrl));
        rows[row + 1]![2].push(await timeToFirstAnswer(rows[row + 1]![1]!, env, apiUrl));
        floor.push(await floorStart());
      }
      npmFloor.push(await timeToFirstAnswer(npm, quiet, floorUrl, scratch));
    }
    console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end`);
    rows.push(['baseline: plain node:http, one route', null, floor]);
    rows.push(['npm start of that plain node (npm alone)', null, npmFloor]);
    console.log(`server start-up, command to first answered request, median of ${RUNS} (plain node: ${floor.length}; npm start runs ${npm.join(' ')}):`);
    const base = median(floor);
    for (const [label, , values] of rows) {
      console.log(
        `  ${label.padEnd(46)} ${ms(median(values)).padStart(9)}   ${`${(median(values) / base).toFixed(1)}x plain node`.padStart(17)}` +
          `   (min ${ms(Math.min(...values))}, max ${ms(Math.max(...values))})`,
      );
    }
    const byLabel = (label: string) => median(rows.find(([name]) => name === label)![2]);
    const npmAlone = median(npmFloor) - base;
    for (const when of ['new data directory', 'restart']) {
      const start = byLabel(`node scripts/start.mjs, ${when}`);
      const npmExtra = byLabel(`npm start, ${when}`) - byLabel(`node dist/platform/main.mjs, ${when}`);
      console.log(
        `${when}: node scripts/start.mjs ${ms(start)} = ${(start / base).toFixed(1)}x plain node ` +
          `(target <= ${TARGET_TIMES_NODE}x: ${verdict(start <= TARGET_TIMES_NODE * base)}); ` +
          `npm start adds ${ms(npmExtra)} to the bundle started directly (target <= ${ms(TARGET_NPM_MS)}: ${verdict(npmExtra <= TARGET_NPM_MS)})`,
      );
    }
    console.log(
      `npm alone adds ${ms(npmAlone)} to plain node: of what npm start adds, that much is npm's own start-up, ` +
        `the same for any project; the rest is this project's start script`,
    );
  } finally {
    poller.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

const verdict = (met: boolean) => (met ? 'target met' : 'TARGET MISSED');
