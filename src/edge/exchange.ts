import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Route } from './routing';

/** How the request ended, for the log steps. */
export type Outcome =
  /** A worker answered (its status is the response's). */
  | { kind: 'worker'; script: string; version: string; result: 'ok' }
  /** A worker failed; the platform answered with its error (`code`), or the connection was cut once the answer had begun. */
  | { kind: 'worker'; script: string; version?: string; result: 'exception' | 'exceeded-resources' | 'canceled'; code?: number; error?: string }
  /** The platform answered itself (a hostname it does not serve, no origin, ...), with its error code if it has one. */
  | { kind: 'platform'; status: number; code?: number }
  /** A step before routing answered (a rule's block or challenge, ...). */
  | { kind: 'step'; step: string }
  /** A zone's origin answered. */
  | { kind: 'origin' };

/**
 * One request through the edge, as each step sees it. Steps may set response headers with
 * `response.setHeader` before the answer is written (a `cf-ray`, ...): whoever writes the answer
 * keeps them.
 */
export interface Exchange {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  /** When the request arrived (epoch milliseconds). */
  readonly received: number;
  /** The request's ray id: every answer carries `cf-ray: <id>-<colo>`, and its log entry `RayID: <id>`. */
  readonly rayId: string;
  /** The Host header's name, lower-case, without its port ('' when absent). */
  readonly hostname: string;
  /** The scheme the client used to reach the edge. */
  readonly scheme: 'http' | 'https';
  /** The client's address as the socket has it (a trusted-proxy step may replace it). */
  clientAddress: string;
  /**
   * What a worker finds in `request.cf`; the steps before the answer add to it (country, ASN, bot
   * score, ...). Sent to the runtime, never to the client.
   */
  cf: Record<string, unknown>;
  /** Set by the routing step, before the steps that may answer run. */
  route?: Route;
  /** Set by whoever answered. */
  outcome?: Outcome;
}

/** Whether the exchange has been answered (a step that answers ends the request there). */
export const answered = (exchange: Exchange): boolean => exchange.response.headersSent || exchange.response.writableEnded;
