import v8 from 'node:v8';

/** Flags by which whoever started the process sized the young generation themselves. */
const SIZING_FLAGS = /--(max|min)[-_]semi[-_]space[-_]size|--semi[-_]space[-_]growth[-_]factor/;

/**
 * Keeps V8's young generation near its size at start-up in the platform's process, unless
 * the process was started with a young-generation flag of its own (on the command line or in
 * NODE_OPTIONS): that choice wins. Answers whether it did.
 *
 * Why: a burst of writes (the server bench's PATCH load) made V8 double the young generation
 * up to 128 MiB (Node 24; 32 MiB on Node 22), and keep it when the burst was over. The platform then held 270-290 MiB while
 * serving reads it had served in 120-145. V8 reads the growth factor each time it considers
 * growing the young generation, so setting it after start-up takes effect.
 */
export function keepYoungGenerationSmall(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  if (SIZING_FLAGS.test([...execArgv, nodeOptions].join(' '))) return false;
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  return true;
}
