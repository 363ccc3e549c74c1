/**
 * Resolves once `condition` holds; rejects after `timeoutMs` with a message naming what was
 * awaited, so a test whose condition never comes fails fast and says why rather than hanging
 * to the runner's timeout.
 */
export async function waitUntil(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 10_000, pollMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
