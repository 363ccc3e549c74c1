// What the storage benchmarks share: elapsed time, a bounded pool of concurrent tasks, number
// formatting, and the baseline they compare against (durable small-file writes and reads).
import fs from 'node:fs';
import { join } from 'node:path';

export const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
export const round = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits });

/** Runs `task(i)` for i in 0..count-1 with at most `concurrency` in flight. */
export async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** Pairs per second of raw file I/O: write `payload` durably to a new file, then read it back. */
export async function rawFilePairs(directory: string, payload: Buffer, count: number, concurrency: number): Promise<number> {
  fs.mkdirSync(directory, { recursive: true });
  const start = process.hrtime.bigint();
  await pool(count, concurrency, async (i) => {
    const path = join(directory, `f${i}`);
    const file = await fs.promises.open(path, 'w');
    await file.write(payload);
    await file.datasync();
    await file.close();
    await fs.promises.readFile(path);
  });
  return count / seconds(start);
}
