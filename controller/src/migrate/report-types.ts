// The report `resty-ingress migrate` prints: with --output json exactly this
// shape (docs/migration.md documents it; `version` changes when a field's
// meaning does). Arrays are sorted so the same inputs give the same bytes.

/** A catalogue status (model/features/catalogue.ts), or `unknown` for a name neither ingress-nginx v1.15.1 nor resty-ingress has. */
export type NameStatus = 'supported' | 'different' | 'ignored' | 'not-supported' | 'unknown';

/** One annotation of an Ingress or one key of the ConfigMap. */
export interface NameReport {
  /** The annotation as written (with its prefix), or the ConfigMap key. */
  readonly name: string;
  readonly status: NameStatus;
  /** With the value given, it keeps the Ingress (annotation) or every Ingress (ConfigMap key) from being served. */
  readonly failsClosed: boolean;
  /** supported: what it does; different: the difference; ignored: why; not-supported/unknown: what happens instead. */
  readonly note: string;
}

/** A builder failure (what the controller logs and reports as a Warning Event). */
export interface FailureReport {
  /** Stable reason, e.g. ProtectionNotSupported, InvalidAnnotation, Conflict, ServiceNotFound. */
  readonly reason: string;
  readonly field: string;
  readonly message: string;
  /**
   * `warning`: served as asked apart from this (an unsupported or misspelt annotation it is served
   * without, an invalid value whose default applies, a Service not found: 503 as in ingress-nginx).
   * `error`: something the Ingress asks for is not done.
   */
  readonly severity: 'error' | 'warning';
}

/** One rule path (or spec.defaultBackend) of an Ingress. */
export interface PathReport {
  /** `spec.rules[i].http.paths[j]` or `spec.defaultBackend`. */
  readonly field: string;
  /** The rule host as written, `*` for none (and for spec.defaultBackend). */
  readonly host: string;
  /** The path as written (`/` for spec.defaultBackend). */
  readonly path: string;
  readonly served: boolean;
  /** Why it is not served, or null. */
  readonly why: string | null;
}

export type IngressVerdict = 'served' | 'served-with-differences' | 'not-served';

/** One Ingress the selected class owns. */
export interface IngressReport {
  readonly namespace: string;
  readonly name: string;
  /**
   * served: every path, every annotation supported as is, nothing reported but a missing Service;
   * served-with-differences: served, but some path is not, or an annotation is not supported as is,
   * or the builder reported something; not-served: none of its paths would be served.
   */
  readonly verdict: IngressVerdict;
  /** Why it is not served (not-served only), else null. */
  readonly why: string | null;
  /** A canary Ingress (it attaches to its main Ingress's paths). */
  readonly canary: boolean;
  /** Its annotations under the prefix, sorted by name. */
  readonly annotations: readonly NameReport[];
  readonly paths: readonly PathReport[];
  /** The builder's failures for this Ingress, in the builder's order. */
  readonly failures: readonly FailureReport[];
}

/** A ConfigMap key as reported, with the ConfigMap it came from. */
export interface ConfigMapReport {
  /** `namespace/name` (for --helm-values: the ConfigMap resty-ingress's chart would render from controller.config). */
  readonly name: string;
  readonly source: 'manifests' | 'cluster' | 'helm-values';
  /** Its keys, sorted. */
  readonly keys: readonly NameReport[];
  /** Failures about its keys (invalid values, unsupported and unknown keys). */
  readonly failures: readonly FailureReport[];
}

/** One flag of the Helm values' controller.extraArgs, checked by the controller's own flag parser. */
export interface FlagReport {
  readonly name: string;
  readonly value: string;
  /**
   * supported: resty-ingress accepts it; ignored: an ingress-nginx flag accepted with a Warning log line
   * (harmless here); invalid-value: the value is refused; not-supported: an ingress-nginx flag resty-ingress
   * refuses (docs/flags.md says what to do instead); unknown: neither has it.
   */
  readonly status: 'supported' | 'ignored' | 'invalid-value' | 'not-supported' | 'unknown';
  readonly note: string;
}

/** An object of a kind migrate reads that it could not use. */
export interface SkippedObject {
  readonly file: string;
  readonly kind: string;
  readonly name: string;
  readonly why: string;
}

/** Where the objects came from. */
export type ReportInput =
  | {
    readonly kind: 'manifests';
    readonly files: readonly string[];
    /** Objects of other kinds (Deployments, Secrets, …), not read. */
    readonly otherObjects: number;
    readonly skipped: readonly SkippedObject[];
  }
  | {
    readonly kind: 'cluster';
    readonly context: string;
    /** The namespace read, or null for all namespaces (-A). */
    readonly namespace: string | null;
  };

export interface ReportSummary {
  readonly ingresses: number;
  readonly served: number;
  readonly servedWithDifferences: number;
  readonly notServed: number;
  /** Paths (and default backends) not served, counted over every Ingress. */
  readonly pathsNotServed: number;
  /** Ingresses of other classes, left out. */
  readonly otherClass: number;
  /** Annotation occurrences by status, over every reported Ingress. */
  readonly annotations: Readonly<Record<NameStatus, number>>;
  /** ConfigMap keys by status. */
  readonly configKeys: Readonly<Record<NameStatus, number>>;
}

/** The whole report. */
export interface MigrateReport {
  readonly version: 1;
  readonly input: ReportInput;
  /** How Ingresses were selected (as ingress-nginx selects them with these flags). */
  readonly selection: {
    readonly ingressClass: string;
    readonly controllerClass: string;
    readonly watchIngressWithoutClass: boolean;
    readonly annotationsPrefix: string;
  };
  /** Whether the controller would serve anything at all, and if not why (fail-closed ConfigMap keys, refused flags). */
  readonly install: { readonly served: boolean; readonly why: readonly string[] };
  readonly configMap: ConfigMapReport | null;
  readonly flags: readonly FlagReport[];
  /** What was read in a way worth knowing (which ConfigMap, Helm values not read), one line each. */
  readonly notes: readonly string[];
  /** Sorted by namespace, then name. */
  readonly ingresses: readonly IngressReport[];
  /** Ingresses the selected class does not own, sorted. */
  readonly otherIngresses: readonly { readonly namespace: string; readonly name: string }[];
  /** Failures about nothing above (neither an Ingress nor the ConfigMap). */
  readonly failures: readonly FailureReport[];
  readonly summary: ReportSummary;
  /** 0: everything served; 1: some Ingress, path or the whole install would not be served. */
  readonly exitCode: 0 | 1;
}
