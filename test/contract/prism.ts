import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { bundlePath } from '../support/bundle';
import { freePort, waitForPort } from '../support/ports';

const root = path.resolve(import.meta.dirname, '../..');

export interface RunningMock {
  baseUrl: string;
  stop(): Promise<void>;
}

/** Starts Prism on a free loopback port, serving the bundled document. */
export async function startPrism(): Promise<RunningMock> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    path.join(root, 'node_modules/.bin/prism'),
    ['mock', bundlePath, '--port', String(port), '--host', '127.0.0.1', '--errors'],
    { cwd: root, stdio: 'ignore', env: { ...process.env, DO_NOT_TRACK: '1' } },
  );
  await waitForPort(port, 30_000);
  return {
    // Prism serves the paths at its root: for the mock, {base_url} is the bare address.
    baseUrl: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
