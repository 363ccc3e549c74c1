// How a job's entries are written: from logpull_options as newline-delimited JSON, or as its
// output_options say (ndjson or csv, the framing of records and batches, a record template, the
// Log4Shell guard).
import { describe, expect, it } from 'vitest';
import { formatBatch, formatRecord, jobOutput } from '../../src/logpush';

const entry = { RayID: '0123456789abcdef', ClientIP: '203.0.113.7', EdgeResponseStatus: 403, RequestHeaders: { 'user-agent': 'curl, "8"' }, ClientRequestPath: '/${jndi:x}' };

describe('logpull_options', () => {
  it('select fields, timestamps and sampling, written as ndjson', () => {
    const output = jobOutput({ logpull_options: 'fields=RayID,EdgeResponseStatus&timestamps=rfc3339&sample=0.5' });
    expect(output).toMatchObject({ fields: ['RayID', 'EdgeResponseStatus'], timestamps: 'rfc3339', sampleRate: 0.5 });
    const record = formatRecord(output.format, output.fields, entry);
    expect(record).toBe('{"RayID":"0123456789abcdef","EdgeResponseStatus":403}\n');
    expect(formatBatch(output.format, [record, record])).toBe(`${record}${record}`);
    expect(jobOutput({ logpull_options: null })).toMatchObject({ fields: [], timestamps: 'unixnano', sampleRate: 1 });
  });
});

describe('output_options', () => {
  it('win over logpull_options, with the ndjson framing by default', () => {
    const output = jobOutput({ logpull_options: 'fields=ClientIP', output_options: { field_names: ['RayID', 'RequestHeaders'], timestamp_format: 'unix' } });
    expect(output).toMatchObject({ fields: ['RayID', 'RequestHeaders'], timestamps: 'unix' });
    expect(formatRecord(output.format, output.fields, entry)).toBe(JSON.stringify({ RayID: entry.RayID, RequestHeaders: entry.RequestHeaders }) + '\n');
  });

  it('write csv, quoting what needs it, with a header as the batch prefix', () => {
    const output = jobOutput({ logpull_options: null, output_options: { output_type: 'csv', field_names: ['RayID', 'RequestHeaders', 'EdgeResponseStatus'], batch_prefix: 'RayID,RequestHeaders,EdgeResponseStatus\n' } });
    const record = formatRecord(output.format, output.fields, entry);
    expect(record).toBe('0123456789abcdef,"{""user-agent"":""curl, \\""8\\""""}",403\n');
    expect(formatBatch(output.format, [record])).toBe(`RayID,RequestHeaders,EdgeResponseStatus\n${record}`);
  });

  it('frame records and batches as asked, or fill a template', () => {
    const framed = jobOutput({
      logpull_options: null,
      output_options: { field_names: ['RayID', 'ClientIP'], batch_prefix: '[', batch_suffix: ']\n', record_prefix: '{', record_suffix: '}', record_delimiter: ',' },
    });
    const records = [formatRecord(framed.format, framed.fields, entry), formatRecord(framed.format, framed.fields, { ...entry, RayID: 'x' })];
    expect(JSON.parse(formatBatch(framed.format, records))).toEqual([{ RayID: entry.RayID, ClientIP: entry.ClientIP }, { RayID: 'x', ClientIP: entry.ClientIP }]);
    const templated = jobOutput({ logpull_options: null, output_options: { field_names: ['RayID', 'EdgeResponseStatus'], record_template: '{{.RayID}} {{ .EdgeResponseStatus }} {{.Missing}}\n' } });
    expect(formatRecord(templated.format, templated.fields, entry)).toBe('0123456789abcdef 403 null\n');
  });

  it('replace ${ with x{ in the file when CVE-2021-44228 is set', () => {
    const guarded = jobOutput({ logpull_options: null, output_options: { field_names: ['ClientRequestPath'], 'CVE-2021-44228': true } });
    expect(formatBatch(guarded.format, [formatRecord(guarded.format, guarded.fields, entry)])).toBe('{"ClientRequestPath":"/x{jndi:x}"}\n');
  });
});
