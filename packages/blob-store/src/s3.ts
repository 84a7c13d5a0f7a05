import {
  CreateBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type BucketLocationConstraint,
} from '@aws-sdk/client-s3';
import { Type } from '@sinclair/typebox';
import { FileSystemBlobStore } from './filesystem';
import { assertBlobKey, assertBlobPrefix, type BlobStore } from './store';

export const s3Config = {
  S3_BUCKET: Type.Optional(
    Type.String({
      minLength: 3,
      description: 'Bucket holding replay, profile, attachment and export bodies; created at start when missing. Either it or BLOB_DIR is required.',
    }),
  ),
  BLOB_DIR: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'A directory holding those bodies instead of S3, for a fleet whose processes share one machine or volume; every process must see the same directory. Either it or S3_BUCKET is required.',
    }),
  ),
  S3_ENDPOINT: Type.Optional(
    Type.String({ format: 'uri', pattern: '^https?://', description: 'Endpoint of an S3-compatible server, e.g. http://minio:9000; unset means AWS S3 in S3_REGION.' }),
  ),
  S3_REGION: Type.String({ default: 'us-east-1', description: 'Region of the bucket (any value for most S3-compatible servers).' }),
  S3_ACCESS_KEY_ID: Type.Optional(Type.String({ description: "Access key; unset means the AWS SDK's default credential chain." })),
  S3_SECRET_ACCESS_KEY: Type.Optional(Type.String({ secret: true, description: 'Secret of S3_ACCESS_KEY_ID.' })),
  S3_FORCE_PATH_STYLE: Type.Boolean({
    default: false,
    description: 'Name the bucket in the URL path (MinIO and most S3-compatible servers) instead of the host name.',
  }),
};

export interface S3Options {
  bucket: string;
  endpoint?: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
}

/** DeleteObjects takes at most this many keys per request. */
const DELETE_BATCH = 1_000;

const statusOf = (error: unknown): number | undefined => (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

/**
 * Fleet blob store: one object per key in one bucket. S3 answers a PUT only once the object is stored durably, so a
 * resolved put survives the loss of any process of ours.
 */
export class S3BlobStore implements BlobStore {
  private constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  static async connect(options: S3Options): Promise<S3BlobStore> {
    const client = new S3Client({
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.accessKeyId && options.secretAccessKey
        ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
        : {}),
      // Checksums only where S3 requires them: several S3-compatible servers reject the newer default headers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    const store = new S3BlobStore(client, options.bucket);
    try {
      await store.ensureBucket(options.region);
    } catch (error) {
      client.destroy();
      throw error;
    }
    return store;
  }

  static fromConfig(config: {
    S3_BUCKET?: string;
    S3_ENDPOINT?: string;
    S3_REGION: string;
    S3_ACCESS_KEY_ID?: string;
    S3_SECRET_ACCESS_KEY?: string;
    S3_FORCE_PATH_STYLE: boolean;
  }): Promise<S3BlobStore> {
    if (!config.S3_BUCKET) throw new Error('S3_BUCKET is required');
    return S3BlobStore.connect({
      bucket: config.S3_BUCKET,
      region: config.S3_REGION,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      ...(config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT } : {}),
      ...(config.S3_ACCESS_KEY_ID ? { accessKeyId: config.S3_ACCESS_KEY_ID } : {}),
      ...(config.S3_SECRET_ACCESS_KEY ? { secretAccessKey: config.S3_SECRET_ACCESS_KEY } : {}),
    });
  }

  /** Creates the bucket when it does not exist, so a fresh MinIO needs no setup step. */
  private async ensureBucket(region: string): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return;
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
    try {
      await this.client.send(
        new CreateBucketCommand({
          Bucket: this.bucket,
          // us-east-1 is the one region S3 wants no location constraint for.
          ...(region === 'us-east-1' ? {} : { CreateBucketConfiguration: { LocationConstraint: region as BucketLocationConstraint } }),
        }),
      );
    } catch (error) {
      // Another instance created it first.
      if ((error as Error).name !== 'BucketAlreadyOwnedByYou') throw error;
    }
  }

  async put(key: string, body: Buffer): Promise<void> {
    assertBlobKey(key);
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: body.length }));
  }

  async get(key: string): Promise<Buffer | undefined> {
    assertBlobKey(key);
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const bytes = await object.Body!.transformToByteArray();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (error) {
      if ((error as Error).name === 'NoSuchKey' || statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  async list(prefix: string): Promise<string[]> {
    assertBlobPrefix(prefix);
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }),
      );
      for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  }

  async deletePrefix(prefix: string): Promise<number> {
    const keys = await this.list(prefix);
    for (let start = 0; start < keys.length; start += DELETE_BATCH) {
      const batch = keys.slice(start, start + DELETE_BATCH);
      const result = await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
      );
      const failed = result.Errors ?? [];
      if (failed.length > 0) throw new Error(`deleting ${failed.length} objects failed, first: ${failed[0]!.Key}: ${failed[0]!.Message}`);
    }
    return keys.length;
  }

  async ping(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

/**
 * The fleet's blob store: a directory shared by every process when BLOB_DIR is set (a small fleet on one machine or
 * volume), else the S3 bucket. A configuration naming neither, or both, is refused with both names.
 */
export function blobStoreFromConfig(config: Parameters<typeof S3BlobStore.fromConfig>[0] & { BLOB_DIR?: string }): Promise<BlobStore> {
  if (config.BLOB_DIR && config.S3_BUCKET) return Promise.reject(new Error('invalid configuration: set either BLOB_DIR or S3_BUCKET, not both'));
  if (config.BLOB_DIR) return FileSystemBlobStore.open(config.BLOB_DIR);
  if (!config.S3_BUCKET) return Promise.reject(new Error('invalid configuration: BLOB_DIR or S3_BUCKET is required'));
  return S3BlobStore.fromConfig(config);
}
