// Preloaded (`node --expose-gc --import`) into a server under test: forces a full garbage
// collection every few milliseconds, so objects of native addons (prepared statements above
// all) are finalized while requests run. Every other collection runs as a task of the event
// loop, outside any JavaScript context, as V8's idle-time and memory-reducing collections do:
// the situation in which better-sqlite3 before 13 aborted on Node 24.19+.
if (typeof globalThis.gc !== 'function') throw new Error('gc-pressure needs node --expose-gc');
const every = Number(process.env.GC_PRESSURE_INTERVAL_MS ?? 5);
let collections = 0;
setInterval(() => {
  globalThis.gc(collections % 2 === 0 ? { type: 'major' } : { type: 'major', execution: 'async' });
  collections += 1;
}, every).unref();
process.once('exit', () => process.stderr.write(`forced garbage collections: ${collections}\n`));
