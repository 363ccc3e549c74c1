/**
 * The SQLite driver under the store: better-sqlite3 (what the store uses) beside Node's
 * built-in node:sqlite, on the statements the store runs most, in one run on one machine:
 * a point read of a ~1 KB JSON row by key, a short range read of 20 rows, and a durable
 * write transaction (WAL, synchronous=FULL as the store's writes) of one insert and one update.
 * Each figure is the median of 5 rounds; the ratio is node:sqlite's time over better-sqlite3's
 * (above 1: better-sqlite3 is faster).
 *
 * Run alone with `npx tsx scripts/bench/sqlite-driver.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';

interface Driver {
  exec(sql: string): void;
  /** A prepared statement returning rows, and one returning nothing. */
  all(sql: string): (...params: (string | number)[]) => unknown[];
  get(sql: string): (...params: (string | number)[]) => unknown;
  run(sql: string): (...params: (string | number)[]) => void;
  close(): void;
}

function betterSqlite3(file: string): Driver {
  const db = new BetterSqlite3(file);
  return {
    exec: (sql) => void db.exec(sql),
    all: (sql) => { const s = db.prepare(sql); return (...p) => s.all(...p); },
    get: (sql) => { const s = db.prepare(sql); return (...p) => s.get(...p); },
    run: (sql) => { const s = db.prepare(sql); return (...p) => void s.run(...p); },
    close: () => db.close(),
  };
}

async function nodeSqlite(file: string): Promise<Driver> {
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(file);
  return {
    exec: (sql) => db.exec(sql),
    all: (sql) => { const s = db.prepare(sql); return (...p) => s.all(...p); },
    get: (sql) => { const s = db.prepare(sql); return (...p) => s.get(...p); },
    run: (sql) => { const s = db.prepare(sql); return (...p) => void s.run(...p); },
    close: () => db.close(),
  };
}

const ROWS = 2_000;
const BODY = JSON.stringify({ rules: Array.from({ length: 8 }, (_, i) => ({ id: `${i}`.padStart(32, '0'), expression: 'http.request.uri.path contains "/admin"', action: 'block' })) });

function workloads(db: Driver): Record<string, () => void> {
  db.exec('pragma journal_mode = WAL; pragma synchronous = FULL;');
  db.exec('create table rulesets (id text primary key, zone text not null, version integer not null, body text not null)');
  db.exec('create index rulesets_zone on rulesets (zone, id)');
  const insert = db.run('insert into rulesets (id, zone, version, body) values (?, ?, 1, ?)');
  db.exec('begin');
  for (let i = 0; i < ROWS; i++) insert(`r${i}`, `z${i % 100}`, BODY);
  db.exec('commit');
  const point = db.get('select id, version, body from rulesets where id = ?');
  const range = db.all('select id, version from rulesets where zone = ? order by id limit 20');
  const bump = db.run('update rulesets set version = version + 1 where id = ?');
  let n = 0;
  return {
    'point read (1 KB row)': () => void point(`r${n++ % ROWS}`),
    'range read (20 rows)': () => void range(`z${n++ % 100}`),
    'write transaction': () => {
      db.exec('begin immediate');
      insert(`w${n++}`, 'zw', BODY);
      bump('r1');
      db.exec('commit');
    },
  };
}

/** Median microseconds per call over 5 rounds of about `ms` each. */
function microseconds(fn: () => void, ms: number): number {
  for (let i = 0; i < 100; i++) fn();
  const rounds: number[] = [];
  for (let round = 0; round < 5; round++) {
    let calls = 0;
    const start = performance.now();
    while (performance.now() - start < ms) {
      for (let i = 0; i < 20; i++) fn();
      calls += 20;
    }
    rounds.push(((performance.now() - start) * 1000) / calls);
  }
  return rounds.sort((a, b) => a - b)[2]!;
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-sqlite-'));
  try {
    const better = workloads(betterSqlite3(path.join(dir, 'better.sqlite')));
    const builtin = workloads(await nodeSqlite(path.join(dir, 'builtin.sqlite')));
    console.log(`node ${process.version}; median of 5 rounds, µs per call`);
    console.log('workload'.padEnd(26) + 'better-sqlite3'.padStart(16) + 'node:sqlite'.padStart(14) + 'ratio'.padStart(8));
    for (const name of Object.keys(better)) {
      const ms = name === 'write transaction' ? 400 : 200;
      const a = microseconds(better[name]!, ms);
      const b = microseconds(builtin[name]!, ms);
      console.log(name.padEnd(26) + a.toFixed(2).padStart(16) + b.toFixed(2).padStart(14) + `${(b / a).toFixed(2)}x`.padStart(8));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await run();
