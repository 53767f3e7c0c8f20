// Which Ingresses are ours, with ingress-nginx's precedence so that a cluster
// run by ingress-nginx (`nginx` / `k8s.io/ingress-nginx`) is served unchanged:
// 1. spec.ingressClassName decides alone when set: ours iff it names an
//    IngressClass whose spec.controller is ours, or, with --ingress-class-by-name,
//    whose name is --ingress-class (a missing class is not ours);
// 2. else the legacy annotation decides alone when present;
// 3. else (no class at all) ours iff --watch-ingress-without-class, or one of
//    our IngressClasses is marked as the cluster default.
// With --disable-catch-all, an Ingress with a spec.defaultBackend is never
// ours (ingress-nginx's store leaves it out whatever its class).

import type { V1Ingress, V1IngressClass } from '@kubernetes/client-node';
import type { BuildOptions } from './types.ts';

/** The legacy class annotation (pre-IngressClass). */
export const LEGACY_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';
/** Marks the IngressClass that classless Ingresses belong to. */
export const DEFAULT_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class';

/** What class selection needs to know about the IngressClasses, computed once per build. */
export interface ClassIndex {
  /** Names of the IngressClasses whose spec.controller is ours. */
  readonly ourClassNames: ReadonlySet<string>;
  /** One of our IngressClasses is the cluster default. */
  readonly ourClassIsDefault: boolean;
}

/** Indexes the IngressClasses that name our controller. */
export function indexIngressClasses(
  classes: readonly V1IngressClass[],
  options: BuildOptions,
): ClassIndex {
  const ourClassNames = new Set<string>();
  let ourClassIsDefault = false;
  for (const ingressClass of classes ?? []) {
    const name = ingressClass?.metadata?.name;
    if (typeof name !== 'string') continue;
    const byName = options.ingressClassByName === true && name === options.ingressClass;
    if (!byName && ingressClass.spec?.controller !== options.controllerClass) continue;
    ourClassNames.add(name);
    if (ingressClass.metadata?.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true') {
      ourClassIsDefault = true;
    }
  }
  return { ourClassNames, ourClassIsDefault };
}

/** True when this controller should serve the Ingress. */
export function isOurIngress(ingress: V1Ingress, index: ClassIndex, options: BuildOptions): boolean {
  if (options.disableCatchAll === true && ingress?.spec?.defaultBackend != null) return false;
  const className = ingress?.spec?.ingressClassName;
  if (typeof className === 'string' && className !== '') {
    return index.ourClassNames.has(className);
  }
  const annotations = ingress?.metadata?.annotations;
  if (annotations && Object.hasOwn(annotations, LEGACY_CLASS_ANNOTATION)) {
    return annotations[LEGACY_CLASS_ANNOTATION] === options.ingressClass;
  }
  return options.watchIngressWithoutClass || index.ourClassIsDefault;
}
