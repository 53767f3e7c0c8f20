// A small Dockerfile reader for scripts/dockerfile.test.ts (no Docker engine
// exists here, so the image is checked by reading its recipe): instructions
// with continuation lines joined, the stage each belongs to, and COPY's
// flags, sources and destination. Enough for our Dockerfile, not a full
// BuildKit grammar (no heredocs, no escape-directive changes).

/** One instruction, e.g. `COPY --from=build /src/bin /app/bin` in stage `runtime`. */
export interface Instruction {
  /** Upper-case keyword: FROM, RUN, COPY, … */
  readonly keyword: string;
  /** Everything after the keyword, continuation lines joined with a space. */
  readonly args: string;
  /** Name of the stage (`AS name`, else its index as text); '' before the first FROM. */
  readonly stage: string;
  /** 1-based line where the instruction starts. */
  readonly line: number;
}

export interface CopyInstruction {
  /** Stage name of --from, or null when copying from the build context. */
  readonly from: string | null;
  readonly sources: readonly string[];
  readonly destination: string;
  readonly stage: string;
}

const FROM_PATTERN = /^(\S+)(?:\s+AS\s+(\S+))?$/i;

/** Parses Dockerfile text into instructions; throws on a line it cannot read. */
export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  const lines = text.split('\n');
  let stage = '';
  let stageCount = 0;
  for (let i = 0; i < lines.length; i++) {
    const first = (lines[i] ?? '').trim();
    if (first === '' || first.startsWith('#')) continue;
    const start = i;
    let joined = first;
    while (joined.endsWith('\\')) {
      joined = joined.slice(0, -1).trimEnd();
      i++;
      if (i >= lines.length) throw new Error(`Dockerfile line ${start + 1}: continuation at end of file`);
      const next = (lines[i] ?? '').trim();
      if (!next.startsWith('#')) joined += ` ${next}`; // comment lines inside a continuation are dropped
    }
    const match = /^([A-Za-z]+)\s+(.*)$/.exec(joined);
    if (!match?.[1] || match[2] === undefined) throw new Error(`Dockerfile line ${start + 1}: not an instruction: ${joined}`);
    const keyword = match[1].toUpperCase();
    const args = match[2].trim();
    if (keyword === 'FROM') {
      const from = FROM_PATTERN.exec(args);
      if (!from) throw new Error(`Dockerfile line ${start + 1}: bad FROM: ${args}`);
      stage = from[2] ?? String(stageCount);
      stageCount++;
    }
    instructions.push({ keyword, args, stage, line: start + 1 });
  }
  return instructions;
}

/** Splits exec form (`["a", "b"]`) or shell-form words. */
export function argumentList(args: string): string[] {
  if (args.startsWith('[')) {
    const parsed: unknown = JSON.parse(args);
    if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === 'string')) throw new Error(`not a JSON string array: ${args}`);
    return parsed;
  }
  return args.split(/\s+/).filter((w) => w !== '');
}

/** The COPY instructions with their --from flag split off (other flags are ignored). */
export function copyInstructions(instructions: readonly Instruction[]): CopyInstruction[] {
  return instructions.filter((ins) => ins.keyword === 'COPY').map((ins) => {
    const words = argumentList(ins.args);
    const flags = words.filter((w) => w.startsWith('--'));
    const paths = words.filter((w) => !w.startsWith('--'));
    const destination = paths.pop();
    if (!destination || paths.length === 0) throw new Error(`Dockerfile line ${ins.line}: COPY needs a source and a destination`);
    const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length) ?? null;
    return { from, sources: paths, destination, stage: ins.stage };
  });
}

/** The last value an instruction keyword took in a stage (WORKDIR, USER, ENTRYPOINT, …). */
export function lastInStage(instructions: readonly Instruction[], stage: string, keyword: string): string | undefined {
  return instructions.filter((ins) => ins.stage === stage && ins.keyword === keyword).at(-1)?.args;
}
