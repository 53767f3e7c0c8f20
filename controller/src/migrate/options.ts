// The command line of `resty-ingress migrate`. Cluster flags are kubectl's
// (--kubeconfig, --context, -n/--namespace, -A/--all-namespaces); the class
// flags default to ingress-nginx's own (`nginx`, `k8s.io/ingress-nginx`),
// because the question is what an ingress-nginx install's Ingresses become.
// Like the controller's parser it never prints or exits: it throws
// CommandLineExit (help: exit 0; usage error: exit 2).

import { Command, InvalidArgumentError, Option } from 'commander';
import { CommandLineExit, parseCommand } from '../cli/command-line-exit.ts';
import * as parse from '../cli/validators.ts';

export type OutputFormat = 'text' | 'json';

/** Ingress selection, as ingress-nginx selects with the same flags. */
export interface Selection {
  readonly ingressClass: string;
  readonly controllerClass: string;
  readonly watchIngressWithoutClass: boolean;
  readonly annotationsPrefix: string;
}

export interface MigrateOptions {
  /** Manifest files and folders; empty = read the cluster. */
  readonly paths: readonly string[];
  readonly output: OutputFormat;
  /** --configmap namespace/name, or null: a ConfigMap named like ingress-nginx's, if any. */
  readonly configMap: string | null;
  readonly helmValues: string | null;
  readonly kubeconfig: string | null;
  readonly context: string | null;
  /** -n: the namespace read (cluster) or given to objects without one (manifests); null = kubectl's default. */
  readonly namespace: string | null;
  readonly allNamespaces: boolean;
  readonly selection: Selection;
  /** Selection fields set on the command line (they win over Helm values). */
  readonly explicit: ReadonlySet<keyof Selection>;
}

export const INGRESS_NGINX_SELECTION: Selection = Object.freeze({
  ingressClass: 'nginx',
  controllerClass: 'k8s.io/ingress-nginx',
  watchIngressWithoutClass: false,
  annotationsPrefix: 'nginx.ingress.kubernetes.io',
});

function parseOutput(value: string): OutputFormat {
  if (value !== 'text' && value !== 'json') throw new InvalidArgumentError('Expected text or json.');
  return value;
}

function buildCommand(output: { out: string }): Command {
  const command = new Command('resty-ingress migrate')
    .usage('[options] [paths...]')
    .description('Reports what resty-ingress would do with an ingress-nginx install: per Ingress served as is, served with differences, or not served (why), per annotation and ConfigMap key its status. Reads YAML files and folders, or the cluster when no path is given.')
    .argument('[paths...]', 'YAML files and folders (recursively *.yaml, *.yml) with Ingresses, Services, IngressClasses and the ingress-nginx ConfigMap')
    .helpOption('-h, --help', 'show this help')
    .exitOverride()
    .configureOutput({ writeOut: (text) => { output.out += text; }, writeErr: () => {}, outputError: () => {} });
  const options: readonly Option[] = [
    new Option('-o, --output <format>', 'text or json').default('text').argParser(parseOutput),
    new Option('--configmap <namespace/name>', 'the ingress-nginx ConfigMap; default: one named ingress-nginx-controller (or <release>-ingress-nginx-controller)').argParser(parse.parseNamespacedName),
    new Option('--helm-values <file>', 'ingress-nginx Helm values: controller.config as the ConfigMap, controller.extraArgs as flags').argParser(parse.parseFilePath),
    new Option('--kubeconfig <path>', 'kubeconfig file (cluster mode); default: KUBECONFIG, then ~/.kube/config').argParser(parse.parseFilePath),
    new Option('--context <name>', 'kubeconfig context (cluster mode)'),
    new Option('-n, --namespace <namespace>', 'namespace to read (cluster mode; default: the context\'s), or given to objects without one (files)').argParser(parse.parseNamespace),
    new Option('-A, --all-namespaces', 'read every namespace (cluster mode)'),
    new Option('--ingress-class <name>', 'ingress-nginx\'s --ingress-class').default(INGRESS_NGINX_SELECTION.ingressClass).argParser(parse.parseObjectName),
    new Option('--controller-class <class>', 'ingress-nginx\'s --controller-class').default(INGRESS_NGINX_SELECTION.controllerClass).argParser(parse.parseControllerClass),
    new Option('--watch-ingress-without-class [bool]', 'ingress-nginx\'s --watch-ingress-without-class').default(false).argParser(parse.parseBoolean),
    new Option('--annotations-prefix <prefix>', 'ingress-nginx\'s --annotations-prefix').default(INGRESS_NGINX_SELECTION.annotationsPrefix).argParser(parse.parseAnnotationsPrefix),
  ];
  for (const option of options) command.addOption(option);
  command.addHelpText('after', `
Exit codes: 0 every Ingress and path would be served; 1 some Ingress or path,
or the whole install (a fail-closed ConfigMap key, a refused flag), would not
be served; 2 usage error, or the input could not be read. docs/migration.md
describes the report and its JSON.`);
  return command;
}

const SELECTION_KEYS: readonly (keyof Selection)[] = ['ingressClass', 'controllerClass', 'watchIngressWithoutClass', 'annotationsPrefix'];

function check(options: MigrateOptions): MigrateOptions {
  const fromFiles = options.paths.length > 0;
  if (fromFiles && (options.kubeconfig !== null || options.context !== null || options.allNamespaces)) {
    throw CommandLineExit.usage('paths read manifests; --kubeconfig, --context and -A read the cluster: give one or the other');
  }
  if (options.allNamespaces && options.namespace !== null) throw CommandLineExit.usage('-n and -A exclude each other');
  if (options.configMap !== null && options.helmValues !== null) {
    throw CommandLineExit.usage('--configmap and --helm-values both name the ConfigMap (with --helm-values it is controller.config): give one');
  }
  return options;
}

/** Parses the arguments after `migrate`. Throws CommandLineExit for --help and usage errors. */
export function parseMigrateOptions(argv: readonly string[]): MigrateOptions {
  const output = { out: '' };
  const command = buildCommand(output);
  parseCommand(command, argv, output);
  const raw = command.opts();
  const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
  const selection: Selection = {
    ingressClass: raw.ingressClass as string,
    controllerClass: raw.controllerClass as string,
    watchIngressWithoutClass: raw.watchIngressWithoutClass as boolean,
    annotationsPrefix: raw.annotationsPrefix as string,
  };
  return check({
    paths: command.args,
    output: raw.output as OutputFormat,
    configMap: text(raw.configmap),
    helmValues: text(raw.helmValues),
    kubeconfig: text(raw.kubeconfig),
    context: text(raw.context),
    namespace: text(raw.namespace),
    allNamespaces: raw.allNamespaces === true,
    selection,
    explicit: new Set(SELECTION_KEYS.filter((key) => command.getOptionValueSource(key) === 'cli')),
  });
}

/** The --help text of `resty-ingress migrate` (what --help prints: with the exit codes after the flags). */
export function migrateHelpText(): string {
  try {
    parseMigrateOptions(['--help']);
  } catch (err) {
    if (err instanceof CommandLineExit && err.kind === 'help') return err.output;
    throw err;
  }
  throw new Error('--help did not stop parsing');
}
