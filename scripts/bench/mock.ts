// Start-up of the mock (`npm run mock`): from the command to its first answered request, as an
// outside observer sees it (support/first-answer.ts: a separate poller, every 10 ms). Beside it,
// in the same run: Prism's own command line on the same document (`prism mock`), the mock's
// launcher without npm (`node scripts/mock.mjs`), and plain node serving one request with
// node:http, the least any Node server can take here. Target: `npm run mock` answers within 1.5 s.
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { freePort } from '../../test/support/ports';
import { root } from '../tools';
import { startPoller, type Command } from './support/first-answer';

const RUNS = 5;
const TARGET_MS = 1500;
const TOKEN = 'bench-token-0123456789abcdefghijklmnopqrst';

/** `npm run mock` as users type it (under `npm run bench`, npm's own script, run by this same node). */
function npmRunMock(): Command {
  const npmCli = process.env.npm_execpath;
  return npmCli && /\.[cm]?js$/.test(npmCli) ? [process.execPath, npmCli, 'run', 'mock'] : ['npm', 'run', 'mock'];
}

interface Row {
  label: string;
  command: (port: number) => Command;
  /** Where it serves the API's paths. */
  base: string;
  values: number[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (value: number) => `${Math.round(value).toLocaleString('en-US')} ms`;

export async function run(): Promise<void> {
  const poller = startPoller();
  const floorScript = "require('node:http').createServer((q, s) => s.end('{}')).listen(Number(process.env.PORT), '127.0.0.1')";
  const rows: Row[] = [
    { label: 'npm run mock', command: () => npmRunMock(), base: '/client/v4', values: [] },
    { label: 'node scripts/mock.mjs', command: () => [process.execPath, 'scripts/mock.mjs'], base: '/client/v4', values: [] },
    {
      label: "prism mock (Prism's own command line)",
      command: (port) => [path.join(root, 'node_modules/.bin/prism'), 'mock', 'generated/openapi.yaml', '--port', String(port), '--host', '127.0.0.1'],
      base: '',
      values: [],
    },
    { label: 'baseline: plain node:http, one route', command: () => [process.execPath, '-e', floorScript], base: '', values: [] },
  ];
  try {
    const start = async (row: Row) => {
      const port = await freePort();
      return poller.timeToFirstAnswer({
        command: row.command(port),
        env: { ...process.env, PORT: String(port), DO_NOT_TRACK: '1' },
        cwd: root,
        url: `http://127.0.0.1:${port}${row.base}/zones`,
        headers: { authorization: `Bearer ${TOKEN}` },
      });
    };
    // The first start brings the mock's bundle up to date and fills its compile cache; it is not counted.
    await start(rows[1]!);
    console.log(`${availableParallelism()} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the start`);
    // Each round starts every command once, in turn, so a busy minute costs them alike.
    for (let i = 0; i < RUNS; i += 1) for (const row of rows) row.values.push(await start(row));
    console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end`);
    console.log(`mock start-up, command to first answered request (GET /zones), polled from outside every 10 ms, median of ${RUNS}:`);
    const base = median(rows.at(-1)!.values);
    for (const { label, values } of rows) {
      console.log(
        `  ${label.padEnd(40)} ${ms(median(values)).padStart(9)}   ${`${(median(values) / base).toFixed(1)}x plain node`.padStart(17)}` +
          `   (min ${ms(Math.min(...values))}, max ${ms(Math.max(...values))})`,
      );
    }
    const mock = median(rows[0]!.values);
    const prism = median(rows[2]!.values);
    console.log(
      `npm run mock answers first after ${ms(mock)} (target <= ${ms(TARGET_MS)}: ${mock <= TARGET_MS ? 'target met' : 'TARGET MISSED'}), ` +
        `${(prism / mock).toFixed(1)}x sooner than Prism's own command line on the same document`,
    );
  } finally {
    poller.close();
  }
}
