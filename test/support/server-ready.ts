/** The line the server prints once it listens: `Ready on http://127.0.0.1:<port>/client/v4 (pid <n>)`. */
const READY = /^Ready on (http:\/\/\S+?)\/client\/v4 \(pid (\d+)\)$/m;

/** The origin (`http://127.0.0.1:<port>`) a server started with PORT=0 reported, once it has. */
export function readyOrigin(output: string): string | null {
  return READY.exec(output)?.[1] ?? null;
}
