// An Ingress NGINX refuses, on demand. The validators let no value through
// that NGINX would refuse (that is their job), so a test that needs such an
// Ingress runs the controller on a copy of its templates (RESTY_TEMPLATE_DIR)
// that prints a directive NGINX does not know into every proxied location
// whose path is REFUSED_PATH. `nginx -t` then refuses the configuration on
// that location's line, as it would refuse a value out of its range.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './controller.ts';

/** A path of an Ingress whose configuration NGINX refuses (with the templates below). */
export const REFUSED_PATH = '/nginx-refuses';
/** The directive NGINX meets there, as its error names it. */
export const REFUSED_DIRECTIVE = 'resty_test_refused_directive';

/** The line of location.njk after which the directive goes (a proxied location's route). */
const ANCHOR = '            set $resty_route {{ block.proxy.route | q }};\n';

export interface RefusingTemplates {
  /** Environment for startController: RESTY_TEMPLATE_DIR. */
  readonly env: Readonly<Record<string, string>>;
  remove(): Promise<void>;
}

/** Copies rootfs/etc/nginx/template into a temp folder and plants the directive. */
export async function refusingTemplates(): Promise<RefusingTemplates> {
  const dir = await mkdtemp(join(tmpdir(), 'resty-e2e-templates-'));
  await cp(join(REPO_ROOT, 'rootfs/etc/nginx/template'), dir, { recursive: true });
  const location = join(dir, 'location.njk');
  const text = await readFile(location, 'utf8');
  // The route key ends with the path (model/route-key.ts).
  const planted = `${ANCHOR}{% if block.proxy.route.endsWith(" ${REFUSED_PATH}") %}\n            ${REFUSED_DIRECTIVE} on;\n{% endif %}\n`;
  if (text.split(ANCHOR).length !== 2) throw new Error(`location.njk changed: no single line ${JSON.stringify(ANCHOR)} to plant the directive after`);
  await writeFile(location, text.replace(ANCHOR, planted));
  return { env: { RESTY_TEMPLATE_DIR: dir }, remove: () => rm(dir, { recursive: true, force: true }) };
}
