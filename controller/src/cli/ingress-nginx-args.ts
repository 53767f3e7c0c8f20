// ingress-nginx's flags on our command line: a Helm values file's extraArgs
// written for ingress-nginx v1.15.1 must start the controller or say why not,
// never fail on a flag we know (model/features/flag-statuses.ts decides).
// Before commander sees the arguments, this takes out the ingress-nginx flags
// the controller does not parse itself, read as Go's pflag reads them:
// `--flag=value`, `--flag value`, a bool as `--flag` or `--flag=false` (a bool
// never takes the next argument), klog's `-v` also as `-v=2`, `-v 2`, `-v2`.
// Each value is checked against the flag's Go type, as pflag would refuse it.
// Everything else (our flags, unknown ones, positionals) is left to commander.

import { isIP } from 'node:net';

import { FLAG_STATUSES } from '../model/features/flag-statuses.ts';
import { INGRESS_NGINX_FLAGS, type IngressNginxFlag, type IngressNginxFlagType } from '../model/features/ingress-nginx-flags.ts';
import { CommandLineExit } from './command-line-exit.ts';
import { parseBoolean, type LogLevel } from './validators.ts';

/** One ingress-nginx flag the controller accepted without parsing it itself: main logs it once. */
export interface FlagNotice {
  /** Without the dashes. */
  readonly flag: string;
  /** As given (the last one when repeated); `true` for a bare bool. */
  readonly value: string;
  /** warn: accepted and ignored; info: taken in another form (--v). */
  readonly level: 'warn' | 'info';
  readonly message: string;
}

export interface IngressNginxArgs {
  /** The arguments left for commander, in their order. */
  readonly rest: readonly string[];
  /** One per flag name (its last value, as pflag keeps), in the order last given. */
  readonly notices: readonly FlagNotice[];
  /** klog's --v, when given. */
  readonly verbosity: number | null;
}

const BY_NAME: ReadonlyMap<string, IngressNginxFlag> = new Map(INGRESS_NGINX_FLAGS.map((flag) => [flag.name, flag]));

const FLOAT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
// Go's time.ParseDuration: one or more number+unit pairs, or a bare 0.
const GO_DURATION = /^[+-]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$/;

/** Whether pflag (or klog) would take `value` for a flag of this Go type. */
function validValue(type: IngressNginxFlagType, value: string): boolean {
  switch (type) {
    case 'bool': return ['true', 'True', 'TRUE', 't', 'T', '1', 'false', 'False', 'FALSE', 'f', 'F', '0'].includes(value);
    case 'int': return /^[+-]?(\d+|0[xX][0-9a-fA-F]+)$/.test(value);
    case 'uint': return /^(\d+|0[xX][0-9a-fA-F]+)$/.test(value);
    case 'float': return FLOAT.test(value);
    case 'floats': return value === '' || value.split(',').every((item) => FLOAT.test(item.trim()));
    case 'duration': return GO_DURATION.test(value);
    case 'ip': return isIP(value) !== 0;
    case 'severity': return /^(info|warning|error|fatal|\d+)$/i.test(value);
    case 'string': case 'strings': return true;
  }
}

/** The log level klog's verbosity stands for here. */
export function logLevelOfVerbosity(verbosity: number): LogLevel {
  if (verbosity >= 5) return 'trace';
  return verbosity >= 3 ? 'debug' : 'info';
}

/** The value asks for nothing ingress-nginx would not do by default. */
function isDefault(flag: IngressNginxFlag, value: string): boolean {
  return flag.type === 'bool' ? parseBoolean(value) === parseBoolean(flag.default) : value === flag.default;
}

/** `--name[=value]`, or klog's shorthand `-v[=]value`: the name and the inline value, if any. */
function splitFlag(arg: string): { name: string; inline: string | undefined } | null {
  const long = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
  if (long) return { name: long[1] as string, inline: long[2] };
  const short = /^-v(?:=?(.+))?$/s.exec(arg);
  return short ? { name: 'v', inline: short[1] } : null;
}

/** The notice for a flag accepted without being parsed by commander, or a refusal. */
function noticeOf(flag: IngressNginxFlag, value: string): FlagNotice {
  const status = FLAG_STATUSES[flag.name];
  const shown = `--${flag.name}=${value}`;
  switch (status?.kind) {
    case 'ignored': return { flag: flag.name, value, level: 'warn', message: `ingress-nginx flag ${shown} is accepted and ignored: ${status.why}` };
    case 'refused':
      if (isDefault(flag, value)) return { flag: flag.name, value, level: 'warn', message: `ingress-nginx flag ${shown} is its default and asks for nothing: accepted (the flag itself is not supported: ${status.instead})` };
      throw CommandLineExit.usage(`ingress-nginx flag ${shown} is not supported: ${status.instead}`);
    case 'different': return { flag: flag.name, value, level: 'info', message: `ingress-nginx flag ${shown}: ${status.difference}` };
    default: throw new Error(`--${flag.name}: ${status?.kind ?? 'no status'}, yet the command line does not parse it`);
  }
}

/**
 * Takes the ingress-nginx flags `parsedHere` does not claim out of `argv`. Throws
 * CommandLineExit (exit 2) for a refused flag, a bad value or a missing one.
 */
export function takeIngressNginxArgs(argv: readonly string[], parsedHere: (name: string) => boolean): IngressNginxArgs {
  const rest: string[] = [];
  const notices = new Map<string, FlagNotice>();
  let verbosity: number | null = null;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    const split = splitFlag(arg);
    if (split?.name === 'version' && split.inline !== undefined) {
      // commander's --version takes no value; pflag's bool does: true prints, false is no request.
      if (!validValue('bool', split.inline)) throw CommandLineExit.usage(`invalid value ${JSON.stringify(split.inline)} for --version (a Go bool)`);
      if (parseBoolean(split.inline)) rest.push('--version');
      continue;
    }
    const flag = split === null ? undefined : BY_NAME.get(split.name);
    if (split === null || flag === undefined || parsedHere(flag.name)) {
      rest.push(arg);
      continue;
    }
    let value = split.inline;
    if (value === undefined && flag.type === 'bool') value = 'true';
    if (value === undefined) {
      if (i + 1 >= argv.length) throw CommandLineExit.usage(`ingress-nginx flag --${flag.name} needs a value`);
      i += 1;
      value = argv[i] as string;
    }
    if (!validValue(flag.type, value)) throw CommandLineExit.usage(`invalid value ${JSON.stringify(value)} for ingress-nginx flag --${flag.name} (a Go ${flag.type})`);
    if (flag.name === 'v') verbosity = Number(value);
    notices.delete(flag.name); // the last one wins, as in pflag
    notices.set(flag.name, Object.freeze(noticeOf(flag, value)));
  }
  return { rest, notices: Object.freeze([...notices.values()]), verbosity };
}
