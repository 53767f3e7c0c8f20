// Which dynamic module files a configuration loads, as they are on disk now.
// A running master's parse is not a full check of them: on a reload its
// `load_module` finds the library it already loaded under that path (dlopen
// matches by name) and never reads the file again, where `nginx -t` (a new
// process) would. So a reload may skip `nginx -t` only while the module files
// are those the master started with (nginx-manager.ts).
import { statSync } from 'node:fs';

/** `load_module "<path>";` lines as render prints them (absolute, quoted). */
const LOAD_MODULE = /^load_module "([^"]+)";/gmu;

/** Identity (device, inode, size, mtime) of every module file `conf` loads; a missing file is "missing". */
export function moduleFilesStamp(conf: string): string {
  const parts: string[] = [];
  for (const match of conf.matchAll(LOAD_MODULE)) {
    const path = match[1] ?? '';
    try {
      const st = statSync(path);
      parts.push(`${path} ${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`);
    } catch {
      parts.push(`${path} missing`);
    }
  }
  return parts.join('\n');
}
