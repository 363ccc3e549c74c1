// The reference worker served by `npm run worker` on a free port, over a fresh data directory.
import { join } from 'node:path';
import { ROOT, startHost, type Host } from './commands';
import { configFile, dataDirectoryWith } from './config-files';

export const REFERENCE_WORKER = join(ROOT, 'src/worker/reference/index.ts');

/** Starts the reference worker with MY_BUCKET bound, these keys readable and this secret in the environment. */
export async function startReferenceWorker(allowList: string[], secret: string): Promise<Host> {
  const dataDir = await dataDirectoryWith('my-bucket');
  const config = configFile(
    'wrangler.toml',
    `name = "reference"
main = "${REFERENCE_WORKER}"
compatibility_date = "2024-09-23"

[[r2_buckets]]
binding = "MY_BUCKET"
bucket_name = "my-bucket"

[vars]
ALLOW_LIST = ${JSON.stringify(allowList)}

[secrets]
required = ["AUTH_KEY_SECRET"]
`,
  );
  return startHost(['--config', config, '--port', '0', '--data-dir', dataDir], { AUTH_KEY_SECRET: secret });
}
