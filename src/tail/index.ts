/**
 * Live tails (`wrangler tail`): sessions of a script's traces, created through the API and read
 * over a WebSocket on the API's port, each with its filters and expiry; the traces come from the
 * runtime of deployed workers, handed over by the platform.
 *
 * - `new LiveTails({ trace })`: `create`, `list`, `remove`, `removeScript`, `deliver(traces)`, `close`.
 * - `tailUpgrades(tails).upgrade(request, socket, head)`: the API server's `upgrade` handler for `/tails/<id>`.
 */
export { OUTCOMES, TailFilterError, type TailFilter } from './filters';
export { LiveTails, MAX_TAILS_PER_SCRIPT, TAIL_TTL_MS, TailRefusal, TOO_MANY_TAILS, type LiveTailsOptions, type ScriptTraces, type TailView } from './sessions';
export { TRACE_PROTOCOL, tailUpgrades } from './socket';
