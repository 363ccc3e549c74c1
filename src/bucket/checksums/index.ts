/**
 * The checksum algorithms: CRC-32, CRC-32C and CRC-64/NVME, and the flexible checksums (SHA and
 * CRC) a write may claim.
 */
export * from './crc';
export * from './flexible-checksums';
