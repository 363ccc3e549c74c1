// The outside observer of a start-up: a process of its own, plain node, started once and kept
// warm, that polls a URL every 10 ms with a new connection each time (as `curl` in a loop would)
// and reports when the first answer came, on the monotonic clock every process of the machine
// shares. Its cost is the same for every command measured, and none of it is the measuring
// process's own (which runs TypeScript through tsx and would otherwise share its CPU with the
// server it times). One JSON line per poll on stdin: {"id", "url", "headers", "status"}; one
// JSON line per answer on stdout: {"id", "at"} (process.hrtime.bigint() of the answer, as text)
// or {"id", "error"} after 60 s without an answer.
import http from 'node:http';
import { createInterface } from 'node:readline';

const INTERVAL_MS = 10;
const GIVE_UP_MS = 60_000;

function once(url, headers) {
  return new Promise((resolve) => {
    const request = http.get(url, { headers, agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('error', () => resolve(0));
    request.setTimeout(5_000, () => request.destroy());
  });
}

async function poll({ id, url, headers = {}, status = 200 }) {
  const started = Date.now();
  for (;;) {
    const answered = await once(url, headers);
    if (answered === status) return { id, at: String(process.hrtime.bigint()) };
    if (Date.now() - started > GIVE_UP_MS) return { id, error: `no ${status} answer within ${GIVE_UP_MS / 1000} s (last: ${answered || 'no connection'})` };
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  void poll(JSON.parse(line)).then((answer) => process.stdout.write(`${JSON.stringify(answer)}\n`));
}
