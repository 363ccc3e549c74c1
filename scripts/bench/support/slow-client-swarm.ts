// Slow clients, as many as asked, against one port: a third send half a request line and stop, a
// third send nothing, a third trickle a header one byte a second. A connection the server cuts is
// opened again after a pause, so the swarm keeps its size. Run as a child process by
// slow-clients.ts (so that its sockets share no event loop with the measuring client); it prints
// `open <n> cut <m>` every second.
//   node --import tsx slow-client-swarm.ts <host> <port> <count>
import net from 'node:net';

const [host = '127.0.0.1', portText = '0', countText = '2000'] = process.argv.slice(2);
const port = Number(portText);
const count = Number(countText);
/** A cut connection is opened again after this long: the swarm holds its connections, it does not flood. */
const REOPEN_AFTER_MS = 250;
/** Connections opened per tick at the start, so the swarm forms in a second or two. */
const OPEN_PER_TICK = 100;

let open = 0;
let cut = 0;

function connect(kind: number): void {
  const socket = net.connect(port, host);
  let trickle: NodeJS.Timeout | undefined;
  let connected = false;
  socket.setNoDelay(true);
  socket.on('connect', () => {
    connected = true;
    open += 1;
    if (kind === 0) socket.write('GET /client/v4/zo');
    if (kind === 2) {
      const header = `GET / HTTP/1.1\r\nhost: localhost\r\nx-slow: ${'a'.repeat(4096)}`;
      let at = 0;
      trickle = setInterval(() => socket.write(header[at++ % header.length]!), 1000);
    }
  });
  // The server's 408 (or nothing) is read and dropped.
  socket.resume();
  socket.on('error', () => undefined);
  socket.on('close', () => {
    clearInterval(trickle);
    if (connected) open -= 1;
    cut += 1;
    setTimeout(() => connect(kind), REOPEN_AFTER_MS);
  });
}

let started = 0;
const opener = setInterval(() => {
  for (let i = 0; i < OPEN_PER_TICK && started < count; i++) connect(started++ % 3);
  if (started >= count) clearInterval(opener);
}, 20);

setInterval(() => process.stdout.write(`open ${open} cut ${cut}\n`), 1000);
process.on('SIGTERM', () => process.exit(0));
