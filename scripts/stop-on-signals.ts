// How the long-running commands (`npm run worker`, `npm run s3`) stop: on SIGTERM or SIGINT
// (Ctrl-C) they say so, let `close` finish what is in flight, and exit 0; a close that fails, or
// takes longer than the timeout, exits 1 with the reason.

const STOP_TIMEOUT_MS = 10_000;

export function stopOnSignals(close: () => Promise<void>, timeoutMs = STOP_TIMEOUT_MS): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`Stopping (${signal})\n`);
    setTimeout(() => {
      process.stderr.write(`still busy after ${timeoutMs / 1000} s; exiting anyway\n`);
      process.exit(1);
    }, timeoutMs).unref();
    close().then(
      () => {
        process.stdout.write('Stopped\n');
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`unclean stop: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
