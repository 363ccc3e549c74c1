// Memory of another process (Linux /proc), and pseudo-random test bytes, for the tests that
// stream large objects through a separate host process.
import { readFileSync, writeFileSync } from 'node:fs';

/** Chunk `index` of a test object: pseudo-random bytes, different for every chunk. */
export function pseudoRandomChunk(index: number, size: number): Uint8Array {
  const words = new Uint32Array(size / 4);
  let state = (index + 1) * 0x9e3779b9;
  for (let i = 0; i < words.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    words[i] = state >>> 0;
  }
  return new Uint8Array(words.buffer);
}

/** Resets the peak memory of a process and returns what it uses now, in bytes. */
export function resetPeakMemory(pid: number): number {
  // Writing 5 to clear_refs resets the peak resident set size (VmHWM) of a process.
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  return memoryField(pid, 'VmRSS');
}

export function memoryField(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match![1]) * 1024;
}
