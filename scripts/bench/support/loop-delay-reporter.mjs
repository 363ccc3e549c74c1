// Loaded into a process under measurement with NODE_OPTIONS=--import=<this file>: every
// LOOP_DELAY_INTERVAL_MS (default 10 s) it appends one JSON line to the file LOOP_DELAY_REPORT
// names, with the process id and the event loop's delay over the interval (p50, p99 and max, in
// milliseconds), then starts the interval's histogram again. Nothing else of the process changes.
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.LOOP_DELAY_REPORT;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const interval = Number(process.env.LOOP_DELAY_INTERVAL_MS) || 10_000;
  const report = () => {
    const ms = (ns) => Math.round((ns / 1e6) * 100) / 100;
    const line = { pid: process.pid, at: Date.now(), p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) };
    histogram.reset();
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
  setInterval(report, interval).unref();
}
