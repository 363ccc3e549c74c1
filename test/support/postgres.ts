// A throwaway PostgreSQL server for tests and benchmarks: `initdb` and `pg_ctl` in a temporary
// directory, listening on a free loopback port, removed on stop (and on process exit).
// PostgreSQL refuses to run as root, so as root the server runs as the `postgres` system user.
import { execFile, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './ports';

const run = promisify(execFile);
const SERVICE_USER = 'postgres';
/** Directory names: the prefix, the pid of the process that owns the server, a random suffix. */
const PREFIX = 'pg-cluster-';
const START_ATTEMPTS = 3;

export interface PostgresCluster {
  readonly port: number;
  /** URL of a database of this server (user postgres, no password on loopback). */
  url(database: string): string;
  /** Creates an empty database with a fresh name and answers its URL. */
  createDatabase(prefix?: string): Promise<string>;
  /** Drops a database by URL, ending its open connections. */
  dropDatabase(url: string): Promise<void>;
  /** Runs one statement as the superuser in the database of `url`. */
  query<Row extends pg.QueryResultRow>(url: string, text: string, values?: unknown[]): Promise<Row[]>;
  /**
   * Stops the server as `pg_ctl stop -m <mode>` does (`fast`: sessions are ended and it shuts down
   * cleanly; `immediate`: it quits at once, as a crash, and recovers at the next start), keeping
   * its files and port.
   */
  stopServer(mode: 'fast' | 'immediate'): Promise<void>;
  /** Starts a server stopped by `stopServer` again, on the same port, and waits until it takes connections. */
  startServer(): Promise<void>;
  /** Stops the server at once and removes its files. */
  stop(): Promise<void>;
}

export interface StartPostgresOptions {
  /**
   * Keep PostgreSQL's crash-safety settings (fsync, full page writes). Tests turn them off:
   * they kill processes, never the machine, and a commit still survives the death of any client.
   */
  durable?: boolean;
  /** More server settings (`name=value`), e.g. the sizes docs/buckets-and-workers.md advises. */
  settings?: string[];
}

/** Starts a private PostgreSQL server; call `stop` when done. */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresCluster> {
  const { bin, version } = installedServer();
  const owner = serviceOwner();
  const parent = filesDir(options.durable ?? false);
  removeOrphans(parent, bin, owner);
  const root = mkdtempSync(path.join(parent, `${PREFIX}${process.pid}-`));
  if (owner) chownSync(root, owner.uid, owner.gid);
  const data = path.join(root, 'data');
  const stopNow = () => destroyServer(bin, owner, root);
  process.once('exit', stopNow);
  try {
    await exec(owner, path.join(bin, 'initdb'), [
      '-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync', '--no-instructions',
      '--locale=C.UTF-8',
      // A database whose locale orders text unlike code points, as most real ones do: the
      // store has to give the same order as on SQLite anyway (ICU locales need version 15).
      ...(version >= 15 ? ['--locale-provider=icu', '--icu-locale=en-US'] : []),
    ]);
    const settings = serverSettings(root, options.durable ?? false, options.settings ?? []);
    const port = await startServer(bin, owner, root, data, settings);
    const pgCtl = path.join(bin, 'pg_ctl');
    return cluster(
      port,
      () => {
        process.removeListener('exit', stopNow);
        stopNow();
      },
      {
        stop: (mode) => exec(owner, pgCtl, ['-D', data, '-m', mode, '-w', 'stop']),
        start: () => exec(owner, pgCtl, ['-D', data, '-l', path.join(root, 'restarted.log'), '-w', '-t', '30', '-o', serverFlags(port, settings), 'start']),
      },
    );
  } catch (error) {
    process.removeListener('exit', stopNow);
    stopNow();
    throw error;
  }
}

/**
 * Stops and removes the servers of processes that died without stopping theirs (a test worker
 * killed on a timeout), so that none lingers in memory.
 */
function removeOrphans(parent: string, bin: string, owner: Owner | undefined): void {
  for (const name of readdirSync(parent)) {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!pid || isAlive(pid)) continue;
    destroyServer(bin, owner, path.join(parent, name));
  }
}

/** Stops the server of `root` at once (if it runs) and removes its files. */
function destroyServer(bin: string, owner: Owner | undefined, root: string): void {
  spawnSync(...command(owner, path.join(bin, 'pg_ctl'), ['-D', path.join(root, 'data'), '-m', 'immediate', 'stop']), { stdio: 'ignore' });
  rmSync(root, { recursive: true, force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function serverSettings(root: string, durable: boolean, extra: string[]): string[] {
  return [
    'listen_addresses=127.0.0.1',
    `unix_socket_directories=${root}`,
    'max_connections=200',
    ...(durable ? [] : ['fsync=off', 'full_page_writes=off', 'synchronous_commit=off']),
    ...extra,
  ];
}

const serverFlags = (port: number, settings: string[]) => [`-p ${port}`, ...settings.map((setting) => `-c ${setting}`)].join(' ');

async function startServer(bin: string, owner: Owner | undefined, root: string, data: string, settings: string[]): Promise<number> {
  for (let attempt = 1; ; attempt += 1) {
    // Another process may take the free port before the server binds it: try another.
    const port = await freePort();
    const log = path.join(root, `server-${attempt}.log`);
    try {
      await exec(owner, path.join(bin, 'pg_ctl'), ['-D', data, '-l', log, '-w', '-t', '30', '-o', serverFlags(port, settings), 'start']);
      return port;
    } catch (error) {
      if (attempt >= START_ATTEMPTS) {
        const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
        throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${tail}`, { cause: error });
      }
    }
  }
}

function cluster(port: number, stop: () => void, server: { stop: (mode: 'fast' | 'immediate') => Promise<void>; start: () => Promise<void> }): PostgresCluster {
  let created = 0;
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const query = async <Row extends pg.QueryResultRow>(target: string, text: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    try {
      return (await client.query<Row>(text, values)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    port,
    url,
    query,
    async createDatabase(prefix = 'test') {
      created += 1;
      const name = `${prefix}_${process.pid}_${created}`;
      await query(url('postgres'), `create database "${name}"`);
      return url(name);
    },
    async dropDatabase(target) {
      const name = new URL(target).pathname.slice(1);
      await query(url('postgres'), `drop database if exists "${name}" with (force)`);
    },
    stopServer: server.stop,
    startServer: server.start,
    stop: async () => stop(),
  };
}

/**
 * Where the server keeps its files: memory (tmpfs) unless durable. Creating a database copies
 * its template, which takes a few hundred milliseconds on disk and a few dozen in memory.
 */
function filesDir(durable: boolean): string {
  const memory = '/dev/shm';
  return !durable && existsSync(memory) ? memory : os.tmpdir();
}

interface Owner {
  uid: number;
  gid: number;
}

/** As root, the system user the server runs as; otherwise none (the server runs as us). */
function serviceOwner(): Owner | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = spawnSync('id', ['-u', SERVICE_USER], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', SERVICE_USER], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error(`running as root, PostgreSQL needs the system user "${SERVICE_USER}" (Debian's postgresql package creates it)`);
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function command(owner: Owner | undefined, program: string, args: string[]): [string, string[]] {
  return owner ? ['runuser', ['-u', SERVICE_USER, '--', program, ...args]] : [program, args];
}

async function exec(owner: Owner | undefined, program: string, args: string[]): Promise<void> {
  const [file, argv] = command(owner, program, args);
  // The server's own cwd must be readable by the service user.
  await run(file, argv, { cwd: '/', timeout: 60_000 });
}

/** The newest installed server's programs (Debian keeps each version under /usr/lib/postgresql). */
function installedServer(): { bin: string; version: number } {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((version) => existsSync(path.join(base, version, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0] === undefined) {
    throw new Error(`no PostgreSQL server under ${base}: install Debian's postgresql package (.ci/run does)`);
  }
  return { bin: path.join(base, versions[0], 'bin'), version: Number(versions[0]) };
}
