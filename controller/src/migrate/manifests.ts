// Kubernetes objects from YAML text, as `kubectl apply -f` reads it: several
// documents per file, `List` kinds (what `kubectl get -o yaml` prints) opened
// into their items, creationTimestamp as a Date (as the informer delivers
// it). Files and folders are walked in name order so a report never depends
// on the order the file system lists them in.

import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

/** An object as found in a manifest: only kind, apiVersion and metadata are looked at here. */
export interface ManifestObject {
  readonly apiVersion?: unknown;
  readonly kind?: unknown;
  readonly metadata?: { readonly name?: unknown; readonly namespace?: unknown; readonly creationTimestamp?: unknown } & Record<string, unknown>;
  readonly [field: string]: unknown;
}

/** Why a manifest could not be read: the file and the YAML parser's first error. */
export class ManifestError extends Error {
  readonly file: string;
  constructor(file: string, detail: string) {
    super(`${file}: ${detail}`);
    this.name = 'ManifestError';
    this.file = file;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A copy of `object` with a string creationTimestamp turned into a Date. */
function withDates(object: Record<string, unknown>): ManifestObject {
  const metadata = object.metadata;
  if (!isObject(metadata) || typeof metadata.creationTimestamp !== 'string') return object;
  return { ...object, metadata: { ...metadata, creationTimestamp: new Date(metadata.creationTimestamp) } };
}

/** `List`, `IngressList`, …: the items are the objects. */
function isListKind(object: Record<string, unknown>): boolean {
  return typeof object.kind === 'string' && object.kind.endsWith('List') && Array.isArray(object.items);
}

/** Every object in a multi-document YAML text, Lists opened; throws ManifestError on a YAML error. */
export function parseManifestObjects(text: string, file: string): ManifestObject[] {
  const objects: ManifestObject[] = [];
  const add = (value: unknown): void => {
    if (!isObject(value)) return;
    if (isListKind(value)) for (const item of value.items as unknown[]) add(item);
    else objects.push(withDates(value));
  };
  for (const document of parseAllDocuments(text)) {
    const error = document.errors[0];
    if (error !== undefined) throw new ManifestError(file, error.message.split('\n')[0] ?? 'YAML error');
    add(document.toJS());
  }
  return objects;
}

/** True for the files a folder walk reads. */
export function isManifestFile(name: string): boolean {
  return /\.ya?ml$/i.test(name);
}

/** The manifest files under `path` (itself when it is a file), sorted; hidden entries are skipped in folders. */
export async function manifestFiles(path: string): Promise<string[]> {
  const info = await stat(path);
  if (!info.isDirectory()) return [path];
  const files: string[] = [];
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const child = join(path, entry.name);
    if (entry.isDirectory()) files.push(...await manifestFiles(child));
    else if (entry.isFile() && isManifestFile(entry.name)) files.push(child);
  }
  return files;
}

/** One object and the file it came from. */
export interface FoundObject {
  readonly file: string;
  readonly object: ManifestObject;
}

/** Reads every object of every manifest file under `paths`, in order. */
export async function readManifests(paths: readonly string[]): Promise<{ files: string[]; objects: FoundObject[] }> {
  const files: string[] = [];
  const objects: FoundObject[] = [];
  for (const path of paths) {
    for (const file of await manifestFiles(path)) {
      files.push(file);
      for (const object of parseManifestObjects(await readFile(file, 'utf8'), file)) objects.push({ file, object });
    }
  }
  return { files, objects };
}
