import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { buildModel } from './build.ts';
import { LEGACY_CLASS_ANNOTATION } from './ingress-class.ts';
import { ingress, ingressClass, options, path, rule, service, snapshot, svc } from './testdata/fixtures.ts';
import { hostnames } from './testdata/inspect.ts';
import type { BuildOptions } from './types.ts';
import type { V1IngressClass } from '@kubernetes/client-node';

const rules = [rule('app.example.com', path('/', svc('web', 80)))];

interface ClassRow {
  readonly name: string;
  /** Give the Ingress a spec.defaultBackend (a catch-all). */
  readonly catchAll?: boolean;
  readonly className?: string | null;
  readonly legacy?: string;
  readonly classes?: V1IngressClass[];
  readonly opts?: Partial<BuildOptions>;
  readonly ours: boolean;
}

const rows: ClassRow[] = [
  { name: 'ingressClassName of our controller', className: 'nginx', ours: true },
  { name: 'ingressClassName of another controller', className: 'other',
    classes: [ingressClass('nginx'), ingressClass('other', 'example.com/other')], ours: false },
  { name: 'ingressClassName naming a class that does not exist', className: 'ghost', ours: false },
  { name: 'class name differs but controller is ours', className: 'public',
    classes: [ingressClass('public', 'k8s.io/ingress-nginx')], ours: true },
  { name: 'custom --controller-class', className: 'resty',
    classes: [ingressClass('resty', 'example.com/resty')], opts: { controllerClass: 'example.com/resty' }, ours: true },
  { name: '--ingress-class-by-name: the class named --ingress-class, another controller', className: 'nginx',
    classes: [ingressClass('nginx', 'example.com/other')], opts: { ingressClassByName: true }, ours: true },
  { name: 'without --ingress-class-by-name the same class is not ours', className: 'nginx',
    classes: [ingressClass('nginx', 'example.com/other')], ours: false },
  { name: '--ingress-class-by-name: another class name of another controller stays not ours', className: 'other',
    classes: [ingressClass('other', 'example.com/other')], opts: { ingressClassByName: true }, ours: false },
  { name: 'a catch-all Ingress is ours by default', className: 'nginx', catchAll: true, ours: true },
  { name: '--disable-catch-all: an Ingress with spec.defaultBackend is not ours', className: 'nginx', catchAll: true, opts: { disableCatchAll: true }, ours: false },
  { name: '--disable-catch-all: a classless catch-all with --watch-ingress-without-class is not ours', className: null, catchAll: true,
    opts: { disableCatchAll: true, watchIngressWithoutClass: true }, ours: false },
  { name: '--disable-catch-all: an Ingress without spec.defaultBackend stays ours', className: 'nginx', opts: { disableCatchAll: true }, ours: true },
  { name: 'legacy annotation equal to --ingress-class', className: null, legacy: 'nginx', ours: true },
  { name: 'legacy annotation of another class', className: null, legacy: 'traefik', ours: false },
  { name: 'ingressClassName wins over a matching legacy annotation', className: 'ghost', legacy: 'nginx', ours: false },
  { name: 'no class, not watching classless', className: null, ours: false },
  { name: 'no class, --watch-ingress-without-class', className: null, opts: { watchIngressWithoutClass: true }, ours: true },
  { name: 'no class, our IngressClass is the default', className: null,
    classes: [ingressClass('nginx', 'k8s.io/ingress-nginx', true)], ours: true },
  { name: 'no class, another controller holds the default', className: null,
    classes: [ingressClass('nginx'), ingressClass('other', 'example.com/other', true)], ours: false },
  { name: 'no class, legacy annotation of another class, watching classless', className: null, legacy: 'traefik',
    opts: { watchIngressWithoutClass: true }, ours: false },
];

void describe('class selection', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const item = ingress('app', {
        className: row.className,
        rules,
        ...(row.catchAll === true ? { defaultBackend: svc('web', 80) } : {}),
        ...(row.legacy === undefined ? {} : { annotations: { [LEGACY_CLASS_ANNOTATION]: row.legacy } }),
      });
      const result = buildModel(snapshot({ ingresses: [item], services: [service('web', [{ port: 80 }])], ...(row.classes ? { ingressClasses: row.classes } : {}) }), options(row.opts));
      assert.equal(hostnames(result).includes('app.example.com'), row.ours);
      // Ingresses that are not ours are ignored silently: they belong to someone else.
      assert.deepEqual(result.failures, []);
    });
  }
});
