/**
 * What the platform's S3-compatible interface can do with a bucket that the binding cannot. Not
 * part of the binding contract; a second front door such as the S3 endpoint uses it.
 */
import type { GetOptions, Precondition, StoredObject, StoredObjectBody, UploadedPart } from './contract';
import type { UploadInventory } from './inventory';

/** Part `partNumber` of an object, and how many parts it was uploaded in. */
export interface PartRead {
  /** Metadata only when a condition failed, as `get` answers. */
  object: StoredObjectBody | StoredObject;
  /** The number of parts of a multipart object; absent for an object stored by a single put. */
  partsCount?: number;
}

export interface CompleteOptions {
  /** Checked against the object the upload would replace, at commit; the upload stays open when it fails. */
  onlyIf?: Precondition | Headers;
  /**
   * Completing a completed upload again with the same parts answers the object it made, while
   * that object is still the key's; without this, error 10024 as the binding answers.
   */
  repeatable?: boolean;
}

export interface OwnerCalls extends UploadInventory {
  /**
   * Reads one part of an object as it was uploaded (an object stored by a single put is part 1),
   * under the options of `get` (`range` excepted). Null when the key does not exist; error 10025
   * when the object has no such part.
   */
  getPart(key: string, partNumber: number, options?: Omit<GetOptions, 'range'>): Promise<PartRead | null>;
  /** The binding's `complete`, with conditions and repeatable completion. Null when `onlyIf` failed. */
  completeUpload(
    key: string,
    uploadId: string,
    parts: UploadedPart[],
    options?: CompleteOptions,
  ): Promise<StoredObject | null>;
}
