// The lines NGINX appends to its error log file while a reload waits for its
// config version. Once running, the master logs to the `error_log` file of
// nginx.conf, not to the stderr the controller reads: a reload the master
// refuses (`[emerg]` while it parses the new file) is only in that file. Read
// from where the file ended at the HUP, every few ms, these lines end the wait
// at once (master-watch.ts) instead of when the reload times out.
import { open } from 'node:fs/promises';
import { parseNginxLogLine, type NginxLogLine } from './nginx-log.ts';

export interface ErrorLogTail {
  /** Stops reading (a last read first, so a line written just before is not lost). */
  stop(): Promise<void>;
}

/** Largest read per poll: an [emerg] comes early; a flood of request errors is not worth reading whole. */
const MAX_READ = 1 << 20;

/**
 * Starts reading `path` from its current end every `everyMs`, handing each
 * complete new line to `onLine`. A missing file is read as empty until it exists.
 */
export async function tailErrorLog(path: string, onLine: (line: NginxLogLine) => void, everyMs = 20): Promise<ErrorLogTail> {
  const sizeOf = async (): Promise<number> => {
    try {
      const handle = await open(path, 'r');
      try {
        return (await handle.stat()).size;
      } finally {
        await handle.close();
      }
    } catch {
      return 0;
    }
  };
  let offset = await sizeOf();
  let partial = '';
  let reading: Promise<void> = Promise.resolve();
  const readNew = async (): Promise<void> => {
    let handle;
    try {
      handle = await open(path, 'r');
    } catch {
      return;
    }
    try {
      const size = (await handle.stat()).size;
      if (size < offset) offset = 0; // reopened (rotated) meanwhile
      if (size === offset) return;
      const length = Math.min(size - offset, MAX_READ);
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, offset);
      offset += bytesRead;
      const lines = (partial + buffer.subarray(0, bytesRead).toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const raw of lines) if (raw.trim() !== '') onLine(parseNginxLogLine(raw));
    } finally {
      await handle.close();
    }
  };
  const timer = setInterval(() => { reading = reading.then(readNew, readNew); }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await reading.catch(() => undefined);
      await readNew().catch(() => undefined);
    },
  };
}
