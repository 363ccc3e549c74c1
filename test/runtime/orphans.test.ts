// No worker outlives the platform that started it, even one killed outright: each workerd is
// watched by a shell that kills it when the platform's end of a pipe closes.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

/** The pids of processes whose command line names `text`. */
function processesNaming(text: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(text)) found.push(Number(name));
    } catch {
      // Ended meanwhile.
    }
  }
  return found;
}

it('stops every workerd of a platform process killed with SIGKILL', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures/runtime-child.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const directory = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      output += text;
      const match = /^directory (\S+)$/m.exec(output);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`the runtime's process ended (exit ${code})`)));
  });
  expect(processesNaming(directory).length).toBeGreaterThanOrEqual(1);
  child.kill('SIGKILL');
  await expect.poll(() => processesNaming(directory), { timeout: 10_000 }).toEqual([]);
}, 60_000);
