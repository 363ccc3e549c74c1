// Customer-provided keys (SSE-C) from the everyday tools that support them: the AWS CLI
// (`--sse-c`, `--sse-c-key`, `--sse-c-copy-source*`), rclone (`sse_customer_*`; its AWS SDK
// sends keys over HTTPS only) and boto3 (`SSECustomer*`). The endpoint serves HTTPS with a
// throwaway certificate (`tls`), so each tool is also shown working over TLS. A tool that is not
// installed is skipped, naming its package; openssl (Debian's) makes the certificate.
import { execFile, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startS3Server, type RunningS3Server } from '../../src/s3';
import { ACCESS_KEY_ID, SECRET } from './support';

const run = promisify(execFile);
const MiB = 1024 * 1024;

const onPath = (tool: string) => (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && fs.existsSync(join(dir, tool)));
const works = (command: string, args: string[]) => {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const openssl = onPath('openssl');
const boto3 = works('python3', ['-c', 'import boto3']);

let root: string;
let server: RunningS3Server;
let ca: string;
const md5 = (file: string) => createHash('md5').update(fs.readFileSync(file)).digest('hex');
/** A tool's environment: its own HOME, no AWS_* settings of the machine (AWS_CA_BUNDLE breaks rclone 1.60). */
const environment = (home: string, extra: Record<string, string> = {}) => ({ PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', ...extra });

async function tool(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  try {
    return (await run(command, args, { env, maxBuffer: 16 * MiB, timeout: 120_000 })).stdout;
  } catch (error) {
    const e = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${e.stderr ?? ''}\n${e.stdout ?? ''}`);
  }
}

/** Runs a command expected to fail; resolves with what it printed. */
async function failing(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const outcome = await run(command, args, { env, timeout: 120_000 }).then(
    () => undefined,
    (error: { stdout?: string; stderr?: string }) => `${error.stderr ?? ''}${error.stdout ?? ''}`,
  );
  if (outcome === undefined) throw new Error(`${command} ${args.join(' ')} was expected to fail`);
  return outcome;
}

describe.skipIf(!openssl)('over HTTPS with a throwaway certificate (needs Debian openssl)', () => {
  beforeAll(async () => {
    root = fs.mkdtempSync(join(tmpdir(), 's3-cli-sse-c-'));
    ca = join(root, 'cert.pem');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-days', '1', '-keyout', join(root, 'key.pem'), '-out', ca,
    ], { stdio: 'ignore' });
    server = await startS3Server({
      accessKeys: new Map([[ACCESS_KEY_ID, SECRET]]),
      dataDir: join(root, 'data'),
      port: 0,
      tls: { cert: fs.readFileSync(ca), key: fs.readFileSync(join(root, 'key.pem')) },
      report: (line) => process.stderr.write(`unexpected internal error: ${line}\n`),
    });
    fs.writeFileSync(join(root, 'small.txt'), 'a small secret');
    // Above the AWS CLI's 8 MiB threshold: sent in parts.
    fs.writeFileSync(join(root, 'large.bin'), randomBytes(12 * MiB));
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  test.skipIf(!onPath('aws'))('the AWS CLI: cp --sse-c up and down (single and multipart), a copy to another key, refusals (awscli)', async () => {
    const home = join(root, 'home-aws');
    fs.mkdirSync(home);
    const env = environment(home, { AWS_ACCESS_KEY_ID: ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET, AWS_DEFAULT_REGION: 'auto' });
    const key = randomBytes(16).toString('hex'); // 32 characters: the CLI sends them as the key's bytes
    const other = randomBytes(16).toString('hex');
    const aws = (...args: string[]) => tool('aws', ['--endpoint-url', server.url, '--ca-bundle', ca, ...args], env);
    const sse = ['--sse-c', 'AES256', '--sse-c-key', key];
    await aws('s3', 'mb', 's3://aws-sse');
    for (const name of ['small.txt', 'large.bin']) {
      await aws('s3', 'cp', join(root, name), `s3://aws-sse/${name}`, ...sse, '--only-show-errors');
      await aws('s3', 'cp', `s3://aws-sse/${name}`, join(home, name), ...sse, '--only-show-errors');
      expect(md5(join(home, name))).toBe(md5(join(root, name)));
    }
    const head = JSON.parse(await aws('s3api', 'head-object', '--bucket', 'aws-sse', '--key', 'large.bin', '--sse-customer-algorithm', 'AES256', '--sse-customer-key', key));
    expect(head).toMatchObject({ ContentLength: 12 * MiB, SSECustomerAlgorithm: 'AES256', SSECustomerKeyMD5: createHash('md5').update(key).digest('base64') });
    await aws('s3', 'cp', 's3://aws-sse/small.txt', 's3://aws-sse/rekeyed.txt', '--sse-c-copy-source', 'AES256', '--sse-c-copy-source-key', key, '--sse-c', 'AES256', '--sse-c-key', other, '--only-show-errors');
    await aws('s3', 'cp', 's3://aws-sse/rekeyed.txt', join(home, 'rekeyed.txt'), '--sse-c', 'AES256', '--sse-c-key', other, '--only-show-errors');
    expect(fs.readFileSync(join(home, 'rekeyed.txt'), 'utf8')).toBe('a small secret');
    const aws2 = (...args: string[]) => failing('aws', ['--endpoint-url', server.url, '--ca-bundle', ca, ...args], env);
    expect(await aws2('s3', 'cp', 's3://aws-sse/small.txt', join(home, 'nokey.txt'))).toMatch(/400|Bad Request/);
    expect(await aws2('s3', 'cp', 's3://aws-sse/small.txt', join(home, 'other.txt'), '--sse-c', 'AES256', '--sse-c-key', other)).toMatch(/400|Bad Request/);
  });

  test.skipIf(!onPath('rclone'))('rclone with sse_customer_key: copy, check, a range, and no reading without the key (rclone)', async () => {
    const home = join(root, 'home-rclone');
    fs.mkdirSync(join(home, 'up'), { recursive: true });
    fs.copyFileSync(join(root, 'small.txt'), join(home, 'up', 'small.txt'));
    fs.copyFileSync(join(root, 'large.bin'), join(home, 'up', 'large.bin'));
    const config = (key?: string) => {
      const file = join(home, `rclone-${key ?? 'nokey'}.conf`);
      fs.writeFileSync(
        file,
        [
          '[local]', 'type = s3', 'provider = Other', `endpoint = ${server.url}`, `access_key_id = ${ACCESS_KEY_ID}`,
          `secret_access_key = ${SECRET}`, 'region = auto', 'force_path_style = true',
          ...(key ? ['sse_customer_algorithm = AES256', `sse_customer_key = ${key}`] : []),
        ].join('\n'),
      );
      return file;
    };
    const key = randomBytes(16).toString('hex');
    const rclone = (file: string, ...args: string[]) => tool('rclone', ['--config', file, '--ca-cert', ca, ...args], environment(home));
    const withKey = config(key);
    await rclone(withKey, 'mkdir', 'local:rclone-sse');
    await rclone(withKey, 'copy', join(home, 'up'), 'local:rclone-sse/up');
    await rclone(withKey, 'copy', 'local:rclone-sse/up', join(home, 'down'));
    expect(md5(join(home, 'down', 'large.bin'))).toBe(md5(join(root, 'large.bin')));
    expect(fs.readFileSync(join(home, 'down', 'small.txt'), 'utf8')).toBe('a small secret');
    await rclone(withKey, 'check', join(home, 'up'), 'local:rclone-sse/up');
    expect(await rclone(withKey, 'cat', 'local:rclone-sse/up/small.txt', '--offset', '2', '--count', '5')).toBe('small');
    // Without the key rclone's HEAD of the object is refused: it finds no such file and reads nothing.
    expect(await rclone(config(), 'cat', 'local:rclone-sse/up/small.txt').catch((error: Error) => error.message)).not.toContain('a small secret');
  });

  test.skipIf(!boto3)('boto3: put, get, head and a multipart upload with SSECustomerKey; another key refused (python3-boto3)', async () => {
    const script = `
import boto3, botocore, hashlib, os, sys
s3 = boto3.client('s3', endpoint_url=sys.argv[1], region_name='auto', aws_access_key_id=sys.argv[2],
                  aws_secret_access_key=sys.argv[3], verify=sys.argv[4],
                  config=botocore.config.Config(s3={'addressing_style': 'path'}))
key, other = os.urandom(32), os.urandom(32)
sse = {'SSECustomerAlgorithm': 'AES256', 'SSECustomerKey': key}
s3.create_bucket(Bucket='boto-sse')
s3.put_object(Bucket='boto-sse', Key='one', Body=b'boto secret', **sse)
assert s3.get_object(Bucket='boto-sse', Key='one', **sse)['Body'].read() == b'boto secret'
head = s3.head_object(Bucket='boto-sse', Key='one', **sse)
assert head['SSECustomerKeyMD5'] == __import__('base64').b64encode(hashlib.md5(key).digest()).decode()
for extra in ({}, {'SSECustomerAlgorithm': 'AES256', 'SSECustomerKey': other}):
    try:
        s3.get_object(Bucket='boto-sse', Key='one', **extra)
        raise SystemExit('read without the right key')
    except botocore.exceptions.ClientError as error:
        assert error.response['ResponseMetadata']['HTTPStatusCode'] == 400, error.response
upload = s3.create_multipart_upload(Bucket='boto-sse', Key='multi', **sse)['UploadId']
parts = [os.urandom(5 * 1024 * 1024), b'tail']
etags = [s3.upload_part(Bucket='boto-sse', Key='multi', UploadId=upload, PartNumber=i + 1, Body=p, **sse)['ETag'] for i, p in enumerate(parts)]
s3.complete_multipart_upload(Bucket='boto-sse', Key='multi', UploadId=upload, MultipartUpload={'Parts': [{'ETag': e, 'PartNumber': i + 1} for i, e in enumerate(etags)]}, **sse)
got = s3.get_object(Bucket='boto-sse', Key='multi', Range='bytes=5242878-5242881', **sse)['Body'].read()
assert got == parts[0][-2:] + b'ta', got
print('ok')
`;
    const out = await tool('python3', ['-c', script, server.url, ACCESS_KEY_ID, SECRET, ca], environment(join(root)));
    expect(out.trim()).toBe('ok');
  });
});
