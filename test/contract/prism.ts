import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort, waitForPort } from '../support/ports';

const root = path.resolve(import.meta.dirname, '../..');

export interface RunningMock {
  /** The mock's base address, `/client/v4` included, as the server's. */
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts the mock as `npm run mock` does (Prism's engine behind the API's front door, from its
 * bundle, rebuilt first if out of date) on a free loopback port.
 */
export async function startPrism(): Promise<RunningMock> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['scripts/mock.mjs'], {
    cwd: root,
    stdio: 'ignore',
    env: { ...process.env, PORT: String(port), DO_NOT_TRACK: '1' },
  });
  // A bundle out of date is built first (some 20 s on a busy machine).
  await waitForPort(port, 120_000);
  return {
    baseUrl: `http://127.0.0.1:${port}/client/v4`,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
