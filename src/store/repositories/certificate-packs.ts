import type { Selectable } from 'kysely';
import { fromJson } from '../codecs';
import { fetchPage } from '../query/paged-query';
import { resolvePage } from '../query/paging';
import type { CertificatePacksTable } from '../schema/tables';
import type { ReadContext } from '../transaction/context';
import type { Executor } from '../transaction/executor';
import type { CertificatePackRepository } from '../store';
import type { Certificate, CertificatePack } from '../types';

const CERTIFICATE_PACK_ORDERS = ['created_on', 'status', 'type', 'id'] as const;
/** The real API's filter value meaning "every status". */
const ALL_STATUSES = 'all';

export function certificatePackRepository(executor: Executor): CertificatePackRepository {
  return {
    get: (zoneId, id) =>
      executor.read(async ({ db }) => {
        const row = await db
          .selectFrom('certificate_packs')
          .selectAll()
          .where('zone_id', '=', zoneId)
          .where('id', '=', id)
          .executeTakeFirst();
        return row === undefined ? null : ((await withCertificates(db, [row]))[0] ?? null);
      }),

    list: (zoneId, options) =>
      executor.read(async ({ db }) => {
        const window = resolvePage(options, CERTIFICATE_PACK_ORDERS);
        let packs = db.selectFrom('certificate_packs').where('zone_id', '=', zoneId);
        if (options?.status !== undefined && options.status !== ALL_STATUSES) {
          packs = packs.where('status', '=', options.status);
        }
        return fetchPage(packs, (q) => q.selectAll(), window, 'certificate_packs', (rows) => withCertificates(db, rows));
      }),
  };
}

/** Attaches the certificates of a page of packs with one query. */
async function withCertificates(
  db: ReadContext['db'],
  rows: Selectable<CertificatePacksTable>[],
): Promise<CertificatePack[]> {
  if (rows.length === 0) {
    return [];
  }
  const certificates = await db
    .selectFrom('certificates')
    .selectAll()
    .where(
      'certificate_pack_id',
      'in',
      rows.map((row) => row.id),
    )
    .orderBy('certificate_pack_id')
    .orderBy('position')
    .execute();
  const byPack = new Map<string, Certificate[]>();
  for (const row of certificates) {
    const list = byPack.get(row.certificate_pack_id) ?? [];
    list.push({
      id: row.id,
      hosts: fromJson(row.hosts),
      issuer: row.issuer,
      signature: row.signature,
      status: row.status,
      bundle_method: row.bundle_method,
      zone_id: row.zone_id,
      uploaded_on: row.uploaded_on,
      modified_on: row.modified_on,
      expires_on: row.expires_on,
      priority: row.priority,
    });
    byPack.set(row.certificate_pack_id, list);
  }
  return rows.map((row) => ({
    id: row.id,
    type: row.type,
    hosts: fromJson(row.hosts),
    primary_certificate: row.primary_certificate,
    status: row.status,
    certificates: byPack.get(row.id) ?? [],
    created_on: row.created_on,
    validity_days: row.validity_days,
    validation_method: row.validation_method,
    certificate_authority: row.certificate_authority,
  }));
}
