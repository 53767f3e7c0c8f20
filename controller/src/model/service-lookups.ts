// The Services a routing looked up (for routing-source.ts). A routing reads
// Services only through ServiceIndex.service(), so a later snapshot whose
// Services give every key looked up the same object (the informer hands on
// unchanged objects) has the same routing: an added Service nothing names, or
// a changed one nothing routes to, keeps it. A miss is a lookup too: a Service
// created later turns its "Service not found" into a route.

import type { ServiceIndex } from './cluster-index.ts';

/** A ServiceIndex that remembers each (namespace, name) asked for, found or not. */
export class LookedUpServices implements ServiceIndex {
  #index: ServiceIndex;
  /** Names by namespace: no `namespace/name` key string per lookup (a 10k-Ingress build does ~30k). */
  readonly #looked = new Map<string, Set<string>>();

  constructor(index: ServiceIndex) {
    this.#index = index;
  }

  service(namespace: string, name: string): ReturnType<ServiceIndex['service']> {
    let names = this.#looked.get(namespace);
    if (names === undefined) {
      names = new Set();
      this.#looked.set(namespace, names);
    }
    names.add(name);
    return this.#index.service(namespace, name);
  }

  /**
   * Reads `next` from now on when it gives every key looked up so far the same object (or none)
   * as the index read until now, and says so; else keeps the old index and returns false.
   */
  moveTo(next: ServiceIndex): boolean {
    for (const [namespace, names] of this.#looked) {
      for (const name of names) if (this.#index.service(namespace, name) !== next.service(namespace, name)) return false;
    }
    this.#index = next;
    return true;
  }
}
