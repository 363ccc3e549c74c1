// The everyday S3 command-line tools (Debian's awscli, rclone and s3cmd) through one plain scenario:
// make a bucket, upload a tree of 200 small files and one 40 MiB file, list, sync again (nothing to
// send), download and compare, delete recursively, remove the bucket. Part sizes of 5, 8, 15 and
// 64 MiB are each covered once (64 MiB: rclone sends the large file in one request). Each tool runs
// one scenario against the endpoint on PostgreSQL as well as on disk. Each tool gets its own HOME
// and configuration; a tool that is not installed is skipped, naming the package.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startS3Server, type RunningS3Server } from '../../src/s3';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { ACCESS_KEY_ID, SECRET } from './support';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const SMALL_FILES = 200;
const LARGE_FILE = 40 * MiB;

function installed(tool: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && fs.existsSync(join(dir, tool)));
}

type Engine = 'disk' | 'postgres';
const ENGINES: Engine[] = ['disk', 'postgres'];
/** A scenario's rows: its part size on each engine. */
const onEachEngine = (partMiB: number): [number, Engine][] => ENGINES.map((engine) => [partMiB, engine]);
/** The endpoint over each engine: the data directory's buckets, or a PostgreSQL database's. */
const servers = {} as Record<Engine, RunningS3Server>;
let cluster: PostgresCluster;
let root: string;
let tree: string;

beforeAll(async () => {
  root = fs.mkdtempSync(join(tmpdir(), 's3-cli-'));
  tree = join(root, 'tree');
  for (let i = 0; i < SMALL_FILES; i++) {
    const dir = join(tree, `dir-${i % 7}`, i % 3 === 0 ? 'deeper' : '');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(join(dir, `file ${i}.txt`), randomBytes(1 + ((i * 977) % 5000)));
  }
  fs.writeFileSync(join(tree, 'large.bin'), randomBytes(LARGE_FILE));
  // One endpoint per engine for every tool, with the platform's own minimum part size (5 MiB).
  cluster = await startPostgres();
  const databaseUrl = await cluster.createDatabase();
  for (const engine of ENGINES) {
    servers[engine] = await startS3Server({
      accessKeys: new Map([[ACCESS_KEY_ID, SECRET]]),
      dataDir: join(root, 'data'),
      ...(engine === 'postgres' ? { databaseUrl } : {}),
      port: 0,
      report: (line) => process.stderr.write(`unexpected internal error: ${line}\n`),
    });
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.close()));
  await cluster?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

/** Every file under `dir` by its relative path, with the MD5 of its bytes. */
function digests(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[relative(dir, path)] = createHash('md5').update(fs.readFileSync(path)).digest('hex');
  }
  return out;
}

/** A tool's own home: its configuration and nothing of the machine's user. */
function homeFor(name: string): string {
  const home = join(root, `home-${name}`);
  fs.mkdirSync(home, { recursive: true });
  return home;
}

/** A minimal environment: no AWS_* settings, no AWS_CA_BUNDLE (rclone 1.60 fails with it). */
function environment(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', ...extra };
}

interface Tool {
  /** Runs one command line of the tool; resolves with its standard output. */
  (args: string[]): Promise<string>;
}

function tool(command: string, env: NodeJS.ProcessEnv, prefix: string[] = []): Tool {
  return async (args) => {
    try {
      const { stdout } = await run(command, [...prefix, ...args], { env, maxBuffer: 64 * MiB, timeout: 240_000 });
      return stdout;
    } catch (error) {
      const e = error as Error & { stdout?: string; stderr?: string };
      throw new Error(`${command} ${args.join(' ')} failed:\n${e.stderr ?? ''}\n${e.stdout ?? ''}\n${e.message}`);
    }
  };
}

/** The tree's files as an S3 listing names them (under `tree/`). */
const expectedKeys = () => Object.keys(digests(tree)).map((path) => `tree/${path}`).sort();

describe('awscli', () => {
  const present = installed('aws');
  test.skipIf(!present).each(onEachEngine(8))(
    '%i MiB parts, on %s: mb, sync up, ls, sync again, sync down, rm --recursive, rb',
    async (partMiB, engine) => {
      const server = servers[engine];
      const home = homeFor(`aws-${partMiB}-${engine}`);
      fs.writeFileSync(
        join(home, 'config'),
        [
          '[default]',
          'region = auto',
          's3 =',
          '  addressing_style = path',
          `  multipart_threshold = ${partMiB}MB`,
          `  multipart_chunksize = ${partMiB}MB`,
          '',
        ].join('\n'),
      );
      const aws = tool(
        'aws',
        environment(home, {
          AWS_CONFIG_FILE: join(home, 'config'),
          AWS_SHARED_CREDENTIALS_FILE: join(home, 'credentials'),
          AWS_ACCESS_KEY_ID: ACCESS_KEY_ID,
          AWS_SECRET_ACCESS_KEY: SECRET,
        }),
        ['--endpoint-url', server.url],
      );
      const bucket = `aws-${partMiB}-${engine}`;
      await aws(['s3', 'mb', `s3://${bucket}`]);
      await aws(['s3', 'sync', '--no-progress', tree, `s3://${bucket}/tree`]);
      const listed = (await aws(['s3', 'ls', '--recursive', `s3://${bucket}`]))
        .trim()
        .split('\n')
        .map((line) => line.slice(31));
      expect(listed.sort()).toEqual(expectedKeys());
      expect((await aws(['s3', 'sync', '--no-progress', tree, `s3://${bucket}/tree`])).trim()).toBe('');
      const down = join(home, 'down');
      await aws(['s3', 'sync', '--no-progress', `s3://${bucket}/tree`, down]);
      expect(digests(down)).toEqual(digests(tree));
      await aws(['s3', 'rm', '--recursive', `s3://${bucket}`]);
      await aws(['s3', 'rb', `s3://${bucket}`]);
      expect(await aws(['s3', 'ls'])).not.toContain(bucket);
    },
    300_000,
  );
  test.skipIf(present)('is skipped: aws is not installed (Debian package awscli)', () => {});
});

describe('rclone', () => {
  const present = installed('rclone');
  // provider Other: part etags are MD5s, so rclone's own multipart etag check holds (with
  // provider Cloudflare, rclone 1.60 turns that check off).
  test.skipIf(!present).each([
    [5, 'Other', 'disk'],
    [64, 'Cloudflare', 'disk'],
    [5, 'Other', 'postgres'],
  ] as [number, string, Engine][])(
    '%i MiB parts (provider %s), on %s: mkdir, copy up, lsf, sync again, copy down, delete, rmdir',
    async (partMiB, provider, engine) => {
      const server = servers[engine];
      const home = homeFor(`rclone-${partMiB}-${engine}`);
      const config = join(home, 'rclone.conf');
      fs.writeFileSync(
        config,
        [
          '[local]',
          'type = s3',
          `provider = ${provider}`,
          `endpoint = ${server.url}`,
          `access_key_id = ${ACCESS_KEY_ID}`,
          `secret_access_key = ${SECRET}`,
          'region = auto',
          'force_path_style = true',
          '',
        ].join('\n'),
      );
      const rclone = tool('rclone', environment(home), [
        '--config',
        config,
        '--s3-chunk-size',
        `${partMiB}M`,
        '--s3-upload-cutoff',
        `${partMiB}M`,
        '--retries',
        '1',
        '--low-level-retries',
        '1',
      ]);
      const bucket = `rclone-${partMiB}-${engine}`;
      await rclone(['mkdir', `local:${bucket}`]);
      await rclone(['copy', tree, `local:${bucket}/tree`]);
      const listed = (await rclone(['lsf', '-R', '--files-only', `local:${bucket}`])).trim().split('\n');
      expect(listed.sort()).toEqual(expectedKeys());
      const again = await rclone(['sync', tree, `local:${bucket}/tree`, '--stats-one-line', '-v']);
      expect(again).not.toMatch(/Copied \(new\)|Copied \(replaced/);
      const down = join(home, 'down');
      await rclone(['copy', `local:${bucket}/tree`, down]);
      expect(digests(down)).toEqual(digests(tree));
      await rclone(['check', tree, `local:${bucket}/tree`]);
      await rclone(['delete', `local:${bucket}`]);
      await rclone(['rmdir', `local:${bucket}`]);
      expect(await rclone(['lsd', 'local:'])).not.toContain(bucket);
    },
    300_000,
  );
  test.skipIf(present)('is skipped: rclone is not installed (Debian package rclone)', () => {});
});

describe('s3cmd', () => {
  const present = installed('s3cmd');
  test.skipIf(!present).each(onEachEngine(15))(
    '%i MiB parts, on %s: mb, sync up, ls, sync again, sync down, del --recursive, rb',
    async (partMiB, engine) => {
      const server = servers[engine];
      const home = homeFor(`s3cmd-${partMiB}-${engine}`);
      const host = new URL(server.url).host;
      const config = join(home, '.s3cfg');
      fs.writeFileSync(
        config,
        [
          '[default]',
          `access_key = ${ACCESS_KEY_ID}`,
          `secret_key = ${SECRET}`,
          `host_base = ${host}`,
          // No %(bucket)s: path-style addressing.
          `host_bucket = ${host}`,
          'use_https = False',
          'bucket_location = auto',
          'signature_v2 = False',
          `multipart_chunk_size_mb = ${partMiB}`,
          'progress_meter = False',
          '',
        ].join('\n'),
      );
      const s3cmd = tool('s3cmd', environment(home), ['--config', config]);
      const bucket = `s3cmd-${partMiB}-${engine}`;
      await s3cmd(['mb', `s3://${bucket}`]);
      await s3cmd(['sync', `${tree}/`, `s3://${bucket}/tree/`]);
      const listed = (await s3cmd(['ls', '--recursive', `s3://${bucket}`]))
        .trim()
        .split('\n')
        .map((line) => line.slice(line.indexOf(`s3://${bucket}/`) + `s3://${bucket}/`.length));
      expect(listed.sort()).toEqual(expectedKeys());
      const again = await s3cmd(['sync', '--stats', `${tree}/`, `s3://${bucket}/tree/`]);
      expect(again).toMatch(/Done\. Uploaded 0 bytes/);
      const down = join(home, 'down');
      await s3cmd(['sync', `s3://${bucket}/tree/`, `${down}/`]);
      expect(digests(down)).toEqual(digests(tree));
      await s3cmd(['del', '--recursive', '--force', `s3://${bucket}`]);
      await s3cmd(['rb', `s3://${bucket}`]);
      expect(await s3cmd(['ls'])).not.toContain(bucket);
    },
    300_000,
  );
  test.skipIf(present)('is skipped: s3cmd is not installed (Debian package s3cmd)', () => {});
});
