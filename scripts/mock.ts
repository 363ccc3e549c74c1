// `npm run mock`: the mock of the management API on http://127.0.0.1:4010/client/v4 (PORT and
// HOST to change), answering from the document's examples (see mock-server.ts).
import { startMock } from './mock-server';

const mock = await startMock({ port: Number(process.env.PORT ?? 4010), host: process.env.HOST ?? '127.0.0.1' });
console.log(`mock of generated/openapi.yaml listening on ${mock.baseUrl}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void mock.close().then(() => process.exit(0)));
}
