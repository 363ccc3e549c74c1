// Serves the bundled document with Prism: answers from the examples, rejects invalid requests.
import { spawn } from 'node:child_process';
import { bin, quietEnv, root } from './tools';

const port = process.env.PORT ?? '4010';
const child = spawn(bin('prism'), ['mock', 'generated/openapi.yaml', '--port', port, '--host', '127.0.0.1'], {
  cwd: root,
  env: quietEnv,
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
