/**
 * The platform's own tail worker, added to a version's workerd process only while somebody tails
 * its script: workerd hands it the trace of every invocation of the version's worker (request,
 * response status, console output, exceptions, outcome; headers that look like credentials
 * already redacted by workerd), and it posts them to the platform's trace sink. It runs in an
 * isolate of its own: the user's worker has no binding to it nor to the sink, so it can neither
 * read nor forge a trace. The unredacted headers travel beside the traces for the filters the
 * platform applies (`--header`, `--ip`), never to a client.
 */
export const TAIL_WORKER_SOURCE = `export default {
  async tail(events, env) {
    const headers = events.map((item) => {
      const request = item.event && item.event.request;
      try {
        return request && typeof request.getUnredacted === 'function' ? request.getUnredacted().headers : {};
      } catch {
        return {};
      }
    });
    await env.SINK.fetch('http://sink/', { method: 'POST', body: JSON.stringify({ events, headers }) });
  },
};
`;
