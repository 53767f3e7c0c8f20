// One open log file read from an offset, for metrics-log-tail.ts. It reads
// through its own file handle, not the path: after a rename or an unlink
// the handle still reaches the file NGINX's workers write into, so what
// they append there is not lost. Complete lines are handed out; the bytes
// after the last "\n" wait for the rest of their line.

import type { BigIntStats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';

/** Reads at most this much at a time, so a large backlog does not hold the event loop or the heap. */
const CHUNK_BYTES = 1024 * 1024;
/** A "line" longer than this without "\n" is not ours: dropped up to its end. */
const MAX_LINE_BYTES = 64 * 1024;
const EMPTY = Buffer.alloc(0);

export interface FileIdentity {
  readonly dev: bigint;
  readonly ino: bigint;
}

/** Where `path` points now, or null when nothing is there. */
export async function identityAt(path: string): Promise<BigIntStats | null> {
  try {
    return await stat(path, { bigint: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export const sameFile = (a: FileIdentity, b: FileIdentity): boolean => a.dev === b.dev && a.ino === b.ino;

export interface ReadResult {
  /** Complete lines, decoded one char per byte (NGINX escapes every byte outside printable ASCII). */
  readonly text: string;
  /** Bytes that arrived since the last read. */
  readonly bytes: number;
  /** Lines dropped for being too long. */
  readonly overlong: number;
  /** The file was shorter than what had been read (truncated): read again from its start. */
  readonly truncated: boolean;
}

export class TailedFile implements FileIdentity {
  readonly dev: bigint;
  readonly ino: bigint;
  private readonly handle: FileHandle;
  private offset: number;
  private pending: Buffer = EMPTY;
  private skippingLine = false;

  private constructor(handle: FileHandle, identity: FileIdentity, offset: number) {
    this.handle = handle;
    this.dev = identity.dev;
    this.ino = identity.ino;
    this.offset = offset;
  }

  /** Opens `path`; reading starts at `startAt(size, identity)` (0 = everything in it). */
  static async open(path: string, startAt: (size: number, identity: FileIdentity) => number): Promise<TailedFile> {
    const handle = await open(path, 'r');
    try {
      const stats = await handle.stat({ bigint: true });
      return new TailedFile(handle, stats, startAt(Number(stats.size), stats));
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  /** How far the file has been read, in bytes. */
  get position(): number {
    return this.offset;
  }

  /** Bytes of a line that has not been completed (nothing should be left when NGINX has written everything). */
  get unfinishedBytes(): number {
    return this.pending.length;
  }

  /** Reads everything appended since the last call. */
  async readNew(): Promise<ReadResult> {
    const size = Number((await this.handle.stat({ bigint: true })).size);
    const truncated = size < this.offset;
    if (truncated) {
      this.offset = 0;
      this.pending = EMPTY;
      this.skippingLine = false;
    }
    const parts: string[] = [];
    let bytes = 0;
    let overlong = 0;
    while (this.offset < size) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - this.offset));
      const { bytesRead } = await this.handle.read(chunk, 0, chunk.length, this.offset);
      if (bytesRead === 0) break;
      this.offset += bytesRead;
      bytes += bytesRead;
      const taken = this.takeLines(chunk.subarray(0, bytesRead));
      if (taken.text) parts.push(taken.text);
      overlong += taken.overlong;
    }
    return { text: parts.join(''), bytes, overlong, truncated };
  }

  close(): Promise<void> {
    return this.handle.close();
  }

  private takeLines(chunk: Buffer): { text: string; overlong: number } {
    let data = chunk;
    if (this.skippingLine) {
      const end = data.indexOf(0x0a);
      if (end < 0) return { text: '', overlong: 0 };
      data = data.subarray(end + 1);
      this.skippingLine = false;
    }
    const last = data.lastIndexOf(0x0a);
    if (last < 0) {
      this.pending = Buffer.concat([this.pending, data]);
      if (this.pending.length <= MAX_LINE_BYTES) return { text: '', overlong: 0 };
      this.pending = EMPTY;
      this.skippingLine = true;
      return { text: '', overlong: 1 };
    }
    const text = Buffer.concat([this.pending, data.subarray(0, last + 1)]).toString('latin1');
    // A copy: keeping a view would keep the whole chunk alive.
    this.pending = Buffer.from(data.subarray(last + 1));
    return { text, overlong: 0 };
  }
}
