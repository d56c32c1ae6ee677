/**
 * Static checks of the root Dockerfile, one build target per service (`docker build --target <service> .`), whose
 * install and copy stages are written once and read the service from TARGETSTAGE (the target's name). No
 * Docker engine exists on the development machines, so the images cannot be built here; this reads the Dockerfile
 * with a small parser (line continuations joined, comments dropped, one instruction per line, stages split at FROM,
 * build arguments substituted where Docker substitutes them and only where the stage declares them) and checks, for
 * every service's target (the target stage merged with the stages it is built FROM), the rules the images must keep:
 * multi-stage, every base image pinned to a full version or a digest, a Node 22 runtime, a non-root USER, an
 * exec-form entry that runs services/<name>/dist/main.js (the file local runs start), `npm ci` rather than
 * `npm install`, every workspace manifest present for `npm ci`, production dependencies only in the runtime, the libs
 * the service builds against shipped, every build argument in scope where it is used, and no RUN or COPY written
 * twice. Edits of the Dockerfile that break a rule are checked to be reported.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import YAML from 'yaml';

const repoRoot = join(__dirname, '../../..');

// ---------------------------------------------------------------------------------------------------------------
// Parser

interface Instruction {
  keyword: string;
  /** Arguments with the build arguments in scope substituted (as Docker does for this keyword). */
  args: string;
  /** Arguments as written. */
  raw?: string;
  /** 1-based line where the instruction starts. */
  line: number;
}

interface Stage {
  index: number;
  /** Image or earlier stage named by FROM, after global ARG substitution. */
  from: string;
  alias?: string;
  /** Instructions after FROM, up to the next FROM. */
  body: Instruction[];
  line: number;
}

interface Dockerfile {
  /** ARG instructions before the first FROM (the only ones FROM may use), with the build arguments applied. */
  globalArgs: Record<string, string | undefined>;
  instructions: Instruction[];
  stages: Stage[];
}

function parseInstructions(text: string): Instruction[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: Instruction[] = [];
  let current: { text: string; line: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const trimmed = raw.trim();
    // Comment and empty lines are dropped, also inside a continued instruction (as BuildKit does); parser
    // directives (# syntax=...) are comments as far as these checks go.
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const continued = /\\\s*$/.test(raw);
    const piece = (continued ? raw.replace(/\\\s*$/, '') : raw).trim();
    if (current) current.text += ` ${piece}`;
    else current = { text: piece, line: i + 1 };
    if (!continued) {
      const m = /^(\S+)\s*(.*)$/s.exec(current.text);
      if (m) out.push({ keyword: m[1].toUpperCase(), args: m[2].trim().replace(/\s+/g, ' '), line: current.line });
      current = null;
    }
  }
  if (current) throw new Error(`line ${current.line}: line continuation at end of file`);
  return out;
}

function substitute(value: string, args: Record<string, string | undefined>): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, braced, bare) => {
    return args[(braced ?? bare) as string] ?? whole;
  });
}

/** Names of the variables `value` still refers to ($NAME or ${NAME}). */
const variablesIn = (value: string) => [...value.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);

/**
 * Keywords whose arguments Docker substitutes build arguments in. RUN is substituted too: its ARGs are environment
 * variables of the command, which the shell expands alike. ENTRYPOINT and CMD are not: the exec form is run as
 * written, and the shell form runs in the container, where build arguments do not exist.
 */
const SUBSTITUTED = new Set([
  'ADD',
  'COPY',
  'ENV',
  'EXPOSE',
  'LABEL',
  'STOPSIGNAL',
  'USER',
  'VOLUME',
  'WORKDIR',
  'RUN',
]);

const parseArg = (args: string): [string, string | undefined] => {
  const [name, ...rest] = args.split('=');
  return [name.trim(), rest.length ? rest.join('=').replace(/^["']|["']$/g, '') : undefined];
};

/** Arguments BuildKit defines itself; a stage sees one only after its own ARG of that name. */
const BUILTIN_ARGS = [
  'TARGETSTAGE',
  'TARGETPLATFORM',
  'TARGETOS',
  'TARGETARCH',
  'TARGETVARIANT',
  'BUILDPLATFORM',
  'BUILDOS',
  'BUILDARCH',
  'BUILDVARIANT',
];

/**
 * The Dockerfile as a build of `target` (none: the last stage) with `buildArgs` (--build-arg) sees it. As in Docker:
 * a global ARG (before the first FROM) takes the build argument of its name, else its default, and only FROM lines
 * see it; inside a stage a name is in scope after that stage's own ARG of it, whose value is the build argument,
 * else its own default, else the global ARG's value. TARGETSTAGE is the name of the target stage in every stage
 * that declares it ("default" for an unnamed last stage). BuildKit also lets a stage inherit its parent stage's
 * ARGs; this parser does not, so the checks ask each stage to declare what it uses, which is right under either
 * rule. A name not in scope is left unsubstituted, so the rules below can report it.
 */
function parseDockerfile(
  text: string,
  build: { target?: string; buildArgs?: Record<string, string> } = {},
): Dockerfile {
  const instructions = parseInstructions(text);
  const lastAlias = [...instructions]
    .reverse()
    .find((i) => i.keyword === 'FROM')
    ?.args.match(/\sAS\s+(\S+)/i)?.[1];
  const buildArgs: Record<string, string | undefined> = {
    ...build.buildArgs,
    TARGETSTAGE: (build.target ?? lastAlias ?? 'default').toLowerCase(),
  };
  const globalArgs: Record<string, string | undefined> = {};
  const stages: Stage[] = [];
  let scope: Record<string, string | undefined> = {};
  for (const ins of instructions) {
    ins.raw = ins.args;
    if (ins.keyword === 'FROM') {
      const words = ins.args.split(' ').filter((w) => !w.startsWith('--'));
      const asAt = words.findIndex((w) => w.toUpperCase() === 'AS');
      stages.push({
        index: stages.length,
        from: substitute(words[0] ?? '', globalArgs),
        alias: asAt >= 0 ? words[asAt + 1]?.toLowerCase() : undefined,
        body: [],
        line: ins.line,
      });
      scope = {};
    } else if (stages.length === 0) {
      if (ins.keyword === 'ARG') {
        const [name, value] = parseArg(ins.args);
        globalArgs[name] = buildArgs[name] ?? value;
      }
    } else {
      if (ins.keyword === 'ARG') {
        const [name, value] = parseArg(ins.args);
        scope[name] = buildArgs[name] ?? value ?? globalArgs[name];
      } else if (SUBSTITUTED.has(ins.keyword)) {
        ins.args = substitute(ins.args, scope);
      }
      stages[stages.length - 1].body.push(ins);
    }
  }
  return { globalArgs, instructions, stages };
}

/** ENTRYPOINT/CMD as an argv; `null` for the shell form (which needs /bin/sh in the image). */
function execForm(args: string): string[] | null {
  if (!args.startsWith('[')) return null;
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === 'string'))
    throw new Error(`not a JSON string array: ${args}`);
  return parsed as string[];
}

interface Copy {
  from?: string;
  sources: string[];
  dest: string;
  line: number;
}

function copies(instructions: Instruction[]): Copy[] {
  return instructions
    .filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD')
    .map((i) => {
      const words = i.args.split(' ');
      let from: string | undefined;
      while (words[0]?.startsWith('--')) {
        const flag = words.shift() as string;
        if (flag.startsWith('--from=')) from = flag.slice('--from='.length).toLowerCase();
      }
      const rest = words.join(' ');
      const paths = rest.startsWith('[') ? (JSON.parse(rest) as string[]) : words;
      const norm = (p: string) => posix.normalize(p).replace(/^\.\//, '');
      return { from, sources: paths.slice(0, -1).map(norm), dest: paths[paths.length - 1], line: i.line };
    });
}

const lastOf = (body: Instruction[], keyword: string) => [...body].reverse().find((i) => i.keyword === keyword);

// ---------------------------------------------------------------------------------------------------------------
// Rules (each returns the violations; an empty list means the rule holds)

const FULL_VERSION_TAG = /^v?\d+\.\d+\.\d+(?:[-._+][A-Za-z0-9._-]+)?$/;
const DIGEST = /@sha256:[a-f0-9]{64}$/;

/** Why `image` is not pinned, or null. Stage names are not images and are skipped by the caller. */
function pinProblem(image: string): string | null {
  if (image.includes('$')) return `${image}: unresolved variable (give the ARG a pinned default)`;
  if (DIGEST.test(image)) return null;
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastSegment.indexOf(':');
  if (colon < 0) return `${image}: no tag (means latest); pin a full version tag or a digest`;
  const tag = lastSegment.slice(colon + 1);
  if (tag === 'latest') return `${image}: "latest" is not a pin`;
  if (!FULL_VERSION_TAG.test(tag))
    return `${image}: tag "${tag}" is not a full version (major.minor.patch) and there is no @sha256 digest`;
  return null;
}

/** The registry image a stage finally rests on, following FROM <earlier stage>. */
function baseImage(df: Dockerfile, stage: Stage): string {
  let s: Stage = stage;
  const seen = new Set<number>();
  while (!seen.has(s.index)) {
    seen.add(s.index);
    const child = s;
    const parent: Stage | undefined = df.stages.find(
      (p) => p.index < child.index && p.alias === child.from.toLowerCase(),
    );
    if (!parent) return s.from;
    s = parent;
  }
  throw new Error('stage cycle');
}

const isStageRef = (df: Dockerfile, stage: Stage) =>
  df.stages.some((p) => p.index < stage.index && p.alias === stage.from.toLowerCase());

const NODE22_IMAGE =
  /^(?:(?:docker\.io\/)?(?:library\/)?node:22\.\d+\.\d+|gcr\.io\/distroless\/nodejs22-debian\d+[:@]|cgr\.dev\/chainguard\/node:22\.)/;
const DISTROLESS_NODE = /^gcr\.io\/distroless\/nodejs\d+-/;

function checkStages(df: Dockerfile): string[] {
  return df.stages.length >= 2
    ? []
    : [`${df.stages.length} FROM stage(s); a build stage and a runtime stage are required`];
}

function checkPins(df: Dockerfile): string[] {
  return df.stages
    .filter((s) => !isStageRef(df, s))
    .flatMap((s) => {
      const problem = pinProblem(s.from);
      return problem ? [`line ${s.line}: FROM ${problem}`] : [];
    });
}

function checkRuntimeNode22(df: Dockerfile): string[] {
  const final = df.stages.at(-1);
  if (!final) return ['no FROM'];
  const image = baseImage(df, final);
  return NODE22_IMAGE.test(image) ? [] : [`final stage runs on ${image}, not a Node 22 image`];
}

function checkUser(df: Dockerfile): string[] {
  const final = df.stages.at(-1);
  const user = final && lastOf(final.body, 'USER');
  if (!user) return ['final stage has no USER (it would run as root)'];
  const name = user.args.split(':')[0].trim();
  return ['root', '0', ''].includes(name) ? [`line ${user.line}: USER ${user.args} is root`] : [];
}

function checkEntry(df: Dockerfile, service: string): string[] {
  const final = df.stages.at(-1);
  if (!final) return ['no FROM'];
  const entrypoint = lastOf(final.body, 'ENTRYPOINT');
  const cmd = lastOf(final.body, 'CMD');
  if (!entrypoint && !cmd) return ['final stage has neither ENTRYPOINT nor CMD'];
  const problems: string[] = [];
  const argv: string[] = [];
  for (const ins of [entrypoint, cmd]) {
    if (!ins) continue;
    const form = execForm(ins.args);
    if (!form)
      problems.push(
        `line ${ins.line}: ${ins.keyword} uses the shell form (needs /bin/sh at runtime); use the JSON exec form`,
      );
    else argv.push(...form);
  }
  if (problems.length) return problems;
  const workdir = final.body.filter((i) => i.keyword === 'WORKDIR').reduce((wd, i) => posix.resolve(wd, i.args), '/');
  const expected = posix.join(workdir, 'services', service, 'dist', 'main.js');
  // Distroless Node images have node as their own ENTRYPOINT; then CMD names the script alone.
  const runsNode =
    posix.basename(argv[0] ?? '') === 'node' || (!entrypoint && DISTROLESS_NODE.test(baseImage(df, final)));
  if (!runsNode) problems.push(`entry ${JSON.stringify(argv)} does not start node`);
  if (!argv.some((a) => posix.resolve(workdir, a) === expected)) {
    problems.push(
      `entry ${JSON.stringify(argv)} does not run ${expected} (services/${service}/dist/main.js under WORKDIR ${workdir})`,
    );
  }
  return problems;
}

function checkNpmCi(df: Dockerfile): string[] {
  const runs = df.instructions.filter((i) => i.keyword === 'RUN');
  const problems = runs
    .filter((i) => /\bnpm\s+(?:install|i|add|isntall|in|ins|inst|insta|instal)(?![-\w])/.test(i.args))
    .map((i) => `line ${i.line}: RUN ${i.args.slice(0, 80)} uses npm install; use npm ci (lockfile-exact)`);
  if (!runs.some((i) => /\bnpm\s+ci\b/.test(i.args))) problems.push('no RUN npm ci');
  return problems;
}

function checkNodeEnv(df: Dockerfile): string[] {
  const final = df.stages.at(-1);
  const envs = (final?.body ?? []).filter((i) => i.keyword === 'ENV').map((i) => i.args);
  return envs.some((e) => /(?:^|\s)NODE_ENV(?:=|\s+)"?production"?(?:\s|$)/.test(e))
    ? []
    : ['final stage does not set ENV NODE_ENV=production'];
}

/** Workspace folders of the root package.json ("libs/*" expanded). */
function workspaces(): string[] {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { workspaces: string[] };
  return pkg.workspaces.flatMap((w) => {
    if (!w.endsWith('/*')) return [w];
    const dir = w.slice(0, -2);
    return readdirSync(join(repoRoot, dir))
      .map((d) => `${dir}/${d}`)
      .filter((d) => existsSync(join(repoRoot, d, 'package.json')));
  });
}

/** The stage chain (the stage, then the stages it is built FROM) of the stage holding instruction `ins`. */
function chainOf(df: Dockerfile, ins: Instruction): Stage[] {
  const chain: Stage[] = [];
  let stage = [...df.stages].reverse().find((s) => s.line <= ins.line);
  while (stage && !chain.includes(stage)) {
    chain.push(stage);
    const from = stage.from.toLowerCase();
    const index: number = stage.index;
    stage = df.stages.find((p) => p.index < index && p.alias === from);
  }
  return chain;
}

/** `npm ci` refuses a lockfile whose workspaces are missing: each npm ci needs every manifest in its stage chain. */
function checkManifests(df: Dockerfile): string[] {
  const required = ['package.json', 'package-lock.json', ...workspaces().map((w) => `${w}/package.json`)];
  return df.instructions
    .filter((i) => i.keyword === 'RUN' && /\bnpm\s+ci\b/.test(i.args))
    .flatMap((ci) => {
      const before = copies(
        chainOf(df, ci)
          .flatMap((s) => s.body)
          .filter((i) => i.line < ci.line),
      ).filter((c) => !c.from);
      const covered = (file: string) =>
        before.some((c) =>
          c.sources.some((s) => s === '.' || s === file || file.startsWith(`${s.replace(/\/$/, '')}/`)),
        );
      return required
        .filter((f) => !covered(f))
        .map((f) => `${f} is not copied into the stage before npm ci (line ${ci.line})`);
    });
}

/** The libs a service compiles against: its tsconfig.build.json references, followed through the libs' own. */
function libClosure(service: string): string[] {
  const libs = new Set<string>();
  const visit = (tsconfigPath: string) => {
    const raw = readFileSync(tsconfigPath, 'utf8');
    const refs = [...raw.matchAll(/"path"\s*:\s*"([^"]+)"/g)].map((m) => join(tsconfigPath, '..', m[1]));
    for (const ref of refs) {
      const m = /[\\/]libs[\\/]([^\\/]+)[\\/]/.exec(ref.replace(repoRoot, ''));
      if (!m || libs.has(m[1])) continue;
      libs.add(m[1]);
      visit(ref.endsWith('.json') ? ref : join(ref, 'tsconfig.json'));
    }
  };
  visit(join(repoRoot, 'services', service, 'tsconfig.build.json'));
  return [...libs].sort();
}

/** RUN commands of a stage and of the stages it is built FROM. */
function stageRuns(df: Dockerfile, name: string): string[] {
  const stage = df.stages.find((s) => s.alias === name || String(s.index) === name);
  if (!stage) return [];
  const parent = df.stages.find((p) => p.index < stage.index && p.alias === stage.from.toLowerCase());
  const own = stage.body.filter((i) => i.keyword === 'RUN').map((i) => i.args);
  return parent ? [...stageRuns(df, parent.alias as string), ...own] : own;
}

/** Workspace folders under which package-lock.json installs nested dependencies (<folder>/node_modules/...). */
function nestedModules(): Set<string> {
  const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  return new Set(
    Object.entries(lock.packages)
      .filter(([path, meta]) => !meta.dev && /^(?:libs|services)\/[^/]+\/node_modules\//.test(path))
      .map(([path]) => path.split('/node_modules/')[0]),
  );
}

/** The runtime stage must ship node_modules plus dist/ and package.json of the service and of every lib it uses. */
function checkShippedPackages(df: Dockerfile, service: string): string[] {
  const final = df.stages.at(-1);
  if (!final) return ['no FROM'];
  const workdir = final.body.filter((i) => i.keyword === 'WORKDIR').reduce((wd, i) => posix.resolve(wd, i.args), '/');
  // Where each copied source lands, relative to WORKDIR ('.' = the whole app directory), and what made it.
  const landed = copies(final.body).flatMap((c) => {
    const dest = posix.relative(workdir, posix.resolve(workdir, c.dest)) || '.';
    const isFile = (s: string) => !s.endsWith('/') && /\.[A-Za-z0-9]+$/.test(posix.basename(s));
    return c.sources.map((s) => ({
      path: isFile(s) && c.dest.endsWith('/') ? posix.join(dest, posix.basename(s)) : dest,
      runs: c.from ? stageRuns(df, c.from) : [],
    }));
  });
  const covered = (path: string, madeBy: RegExp | null) =>
    landed.some(
      (l) =>
        (l.path === '.' || l.path === path || path.startsWith(`${l.path}/`)) &&
        (!madeBy || l.runs.some((r) => madeBy.test(r))),
    );
  const packages = [...libClosure(service).map((l) => `libs/${l}`), `services/${service}`];
  const problems: string[] = [];
  if (!covered('node_modules', /\bnpm\s+ci\b/))
    problems.push('final stage does not copy node_modules from a stage that ran npm ci');
  for (const pkg of packages) {
    if (!covered(`${pkg}/dist`, /\btsc\b/))
      problems.push(`final stage does not copy ${pkg}/dist from a stage that ran tsc`);
    if (!covered(`${pkg}/package.json`, null))
      problems.push(`final stage does not copy ${pkg}/package.json (the node_modules/@idp link resolves through it)`);
    // npm nests a dependency under <package>/node_modules when versions conflict: the package folder must then come
    // whole from the production install, not just its package.json.
    if (nestedModules().has(pkg) && !covered(`${pkg}/node_modules`, /\bnpm\s+ci\b/)) {
      problems.push(
        `final stage does not copy ${pkg}/node_modules (package-lock.json nests dependencies there) from a stage that ran npm ci`,
      );
    }
  }
  // A filtered production install (npm ci --workspace=...) must name every lib, or the lib's dependencies are missing.
  // Only the installs this target's node_modules come from count (other targets have their own deps stages).
  const stageBody = (alias: string): Instruction[] => {
    const stage = df.stages.find((st) => st.alias === alias);
    if (!stage) return [];
    const parent = df.stages.find((p) => p.index < stage.index && p.alias === stage.from.toLowerCase());
    return [...(parent ? stageBody(parent.alias as string) : []), ...stage.body];
  };
  const nodeModulesFrom = copies(final.body)
    .filter((c) => c.from && c.sources.some((src) => /(^|\/)node_modules\/?$/.test(src)))
    .map((c) => c.from as string);
  const filtered = nodeModulesFrom
    .flatMap(stageBody)
    .filter((i) => i.keyword === 'RUN' && /\bnpm\s+ci\b/.test(i.args) && /--(?:workspace|w)\b/.test(i.args));
  for (const run of filtered) {
    const listed = new Set([...run.args.matchAll(/--(?:workspace|w)[= ](\S+)/g)].map((m) => m[1].replace(/\/$/, '')));
    for (const pkg of packages) {
      if (!listed.has(pkg) && !listed.has(`@idp/${posix.basename(pkg)}`))
        problems.push(`line ${run.line}: npm ci --workspace list lacks ${pkg}`);
    }
  }
  return problems;
}

/** EXPOSE matches the default PORT of src/config.ts; no EXPOSE for a service without a port. */
function checkExpose(df: Dockerfile, service: string): string[] {
  const config = readFileSync(join(repoRoot, 'services', service, 'src', 'config.ts'), 'utf8');
  const port = /\bPORT:\s*intEnv\(\s*(\d+)/.exec(config)?.[1];
  const final = df.stages.at(-1);
  const exposed = (final?.body ?? [])
    .filter((i) => i.keyword === 'EXPOSE')
    .flatMap((i) => i.args.split(' ').map((p) => p.split('/')[0]));
  if (!port) return exposed.length ? [`EXPOSE ${exposed.join(' ')} but src/config.ts has no PORT`] : [];
  return exposed.includes(port) ? [] : [`no EXPOSE ${port} (the default PORT in src/config.ts)`];
}

// ---------------------------------------------------------------------------------------------------------------
// Tests

const servicesDir = join(repoRoot, 'services');
const services = readdirSync(servicesDir)
  .filter((d) => statSync(join(servicesDir, d)).isDirectory() && existsSync(join(servicesDir, d, 'package.json')))
  .sort();

/**
 * The Dockerfile as `docker build --target <target>` sees it (no target: the last stage): every stage before the
 * target, then one final stage whose body is the target's chain (FROM parents first) and whose base is the chain's
 * registry image.
 */
function targetView(df: Dockerfile, target?: string): Dockerfile {
  const stage =
    target === undefined ? df.stages[df.stages.length - 1] : df.stages.find((s) => s.alias === target.toLowerCase());
  if (!stage) throw new Error(`no stage named ${target}`);
  const chain: Stage[] = [];
  let s: Stage | undefined = stage;
  while (s && !chain.includes(s)) {
    chain.unshift(s);
    const from = s.from.toLowerCase();
    const index: number = s.index;
    s = df.stages.find((p) => p.index < index && p.alias === from);
  }
  const merged: Stage = {
    index: stage.index,
    from: chain[0].from,
    alias: stage.alias,
    body: chain.flatMap((c) => c.body),
    line: chain[0].line,
  };
  return { ...df, stages: [...df.stages.filter((p) => p.index < stage.index && !chain.includes(p)), merged] };
}

/** WORKDIR of a stage, through the stages it is built FROM. */
function stageWorkdir(df: Dockerfile, name: string): string {
  const stage = df.stages.find((s) => s.alias === name || String(s.index) === name);
  if (!stage) return '/';
  const parent = df.stages.find((p) => p.index < stage.index && p.alias === stage.from.toLowerCase());
  const base = parent ? stageWorkdir(df, parent.alias as string) : '/';
  return stage.body.filter((i) => i.keyword === 'WORKDIR').reduce((wd, i) => posix.resolve(wd, i.args), base);
}

/**
 * A runtime stage must not carry dev dependencies: every npm ci it copies node_modules from runs with --omit=dev, and
 * nothing it copies from a stage with a full install (dev included) holds a node_modules folder of that install:
 * from there only compiled output (a dist/ folder, or a tree assembled outside the install) may come.
 */
function checkProdDepsOnly(df: Dockerfile): string[] {
  const final = df.stages[df.stages.length - 1];
  const fullInstall = (r: string) => /\bnpm\s+ci\b/.test(r) && !/--omit=dev\b/.test(r);
  const fromNodeModules = copies(final.body)
    .filter((c) => c.from && c.sources.some((src) => /(^|\/)node_modules\/?$/.test(src)))
    .flatMap((c) =>
      stageRuns(df, c.from as string)
        .filter(fullInstall)
        .map((r) => `line ${c.line}: node_modules come from a stage that ran "${r.slice(0, 60)}" without --omit=dev`),
    );
  const installDirs = (wd: string) => [
    posix.join(wd, 'node_modules'),
    ...workspaces().map((w) => posix.join(wd, w, 'node_modules')),
  ];
  const holdingDevModules = copies(final.body)
    .filter((c) => c.from && stageRuns(df, c.from).some(fullInstall))
    .flatMap((c) => {
      const wd = stageWorkdir(df, c.from as string);
      return c.sources
        .map((src) => posix.resolve(wd, src))
        .filter((src) => installDirs(wd).some((dir) => dir === src || dir.startsWith(`${src.replace(/\/$/, '')}/`)))
        .map((src) => `line ${c.line}: COPY --from=${c.from} ${src} holds node_modules of a full (dev) install`);
    });
  return [...fromNodeModules, ...holdingDevModules];
}

/**
 * Build arguments where Docker uses them: a variable left in FROM, COPY, ADD, LABEL, EXPOSE, WORKDIR, USER, VOLUME or
 * STOPSIGNAL is one its stage does not declare (Docker puts an empty string there, so `services/${TARGETSTAGE}/`
 * would copy every service); a RUN naming a global or built-in ARG its stage does not declare runs with it empty; an exec-form
 * ENTRYPOINT or CMD is never substituted.
 */
function checkVariables(df: Dockerfile): string[] {
  const problems: string[] = [];
  for (const stage of df.stages) {
    if (variablesIn(stage.from).length) problems.push(`line ${stage.line}: FROM ${stage.from} has no value`);
    for (const ins of stage.body) {
      const left = variablesIn(ins.args);
      if (!left.length) continue;
      if (['ADD', 'COPY', 'LABEL', 'EXPOSE', 'WORKDIR', 'USER', 'VOLUME', 'STOPSIGNAL'].includes(ins.keyword)) {
        problems.push(`line ${ins.line}: ${ins.keyword} uses ${left.join(', ')}, not an ARG of this stage`);
      } else if (ins.keyword === 'RUN') {
        const args = left.filter((name) => name in df.globalArgs || BUILTIN_ARGS.includes(name));
        if (args.length)
          problems.push(`line ${ins.line}: RUN uses ${args.join(', ')}, an argument this stage does not declare`);
      } else if ((ins.keyword === 'ENTRYPOINT' || ins.keyword === 'CMD') && ins.args.startsWith('[')) {
        problems.push(`line ${ins.line}: ${ins.keyword} exec form does not expand ${left.join(', ')}`);
      }
    }
  }
  return problems;
}

/** The management image serves the admin console: console/dist from the stage that built it. */
function checkConsole(df: Dockerfile): string[] {
  const final = df.stages[df.stages.length - 1];
  const workdir = final.body.filter((i) => i.keyword === 'WORKDIR').reduce((wd, i) => posix.resolve(wd, i.args), '/');
  const shipped = copies(final.body).some(
    (c) =>
      c.from &&
      posix.relative(workdir, posix.resolve(workdir, c.dest)) === 'console/dist' &&
      stageRuns(df, c.from).some((r) => /\bnpm\s+run\s+build\s+--workspace[= ]console\b/.test(r)),
  );
  return shipped ? [] : ['final stage does not copy console/dist from a stage that ran the console build'];
}

/**
 * One parametrised set of stages: no RUN or COPY of one stage is written again in another, also when only a
 * service's name (or a variable in its place) differs: that is a stage copied per service. Within a stage, lines
 * that differ by a name are a list (the manifests, one per workspace).
 */
function checkNoRepeats(text: string, serviceNames: string[]): string[] {
  const seen = new Map<string, { line: number; stage: number }>();
  const problems: string[] = [];
  const names = [...serviceNames].sort((a, b) => b.length - a.length);
  let stage = -1;
  for (const ins of parseInstructions(text)) {
    if (ins.keyword === 'FROM') stage++;
    if (ins.keyword !== 'RUN' && ins.keyword !== 'COPY') continue;
    const shape = names.reduce(
      (a, n) => a.split(n).join('<service>'),
      `${ins.keyword} ${ins.args}`.replace(/\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/g, '<service>'),
    );
    const first = seen.get(shape);
    if (first === undefined) seen.set(shape, { line: ins.line, stage });
    else if (first.stage !== stage) problems.push(`line ${ins.line} repeats line ${first.line}: ${shape.slice(0, 80)}`);
  }
  return problems;
}

describe('the rule checkers themselves', () => {
  it('accept full versions and digests, reject latest, bare and major-only tags', () => {
    expect(pinProblem('node:22.21.1-bookworm-slim')).toBeNull();
    expect(pinProblem('docker.io/library/node:22.21.1')).toBeNull();
    expect(pinProblem(`gcr.io/distroless/nodejs22-debian12:nonroot@sha256:${'a'.repeat(64)}`)).toBeNull();
    expect(pinProblem('localhost:5000/node:22.21.1-bookworm-slim')).toBeNull();
    for (const bad of [
      'node',
      'node:latest',
      'node:22',
      'node:22-bookworm-slim',
      'node:22.21',
      'node:lts',
      'gcr.io/distroless/nodejs22-debian12:nonroot',
      'localhost:5000/node',
      'node:${TAG}',
    ]) {
      expect([bad, pinProblem(bad)]).toEqual([bad, expect.any(String)]);
    }
  });

  it('parse continuations, comments inside them, stages and the exec form', () => {
    const df = parseDockerfile(
      [
        '# syntax=docker/dockerfile:1',
        'ARG BASE=node:22.21.1-bookworm-slim',
        'FROM ${BASE} AS build',
        'RUN npm ci \\',
        '    # a comment inside the continuation',
        '    --omit=dev',
        'FROM build AS runtime',
        'USER 1000:1000',
        'WORKDIR /app',
        'ENTRYPOINT ["node", "services/x/dist/main.js"]',
      ].join('\n'),
    );
    expect(df.stages.map((s) => [s.from, s.alias])).toEqual([
      ['node:22.21.1-bookworm-slim', 'build'],
      ['build', 'runtime'],
    ]);
    expect(df.stages[0].body).toEqual([
      { keyword: 'RUN', args: 'npm ci --omit=dev', raw: 'npm ci --omit=dev', line: 4 },
    ]);
    expect(checkPins(df)).toEqual([]);
    expect(checkRuntimeNode22(df)).toEqual([]);
    expect(checkUser(df)).toEqual([]);
    expect(checkEntry(df, 'x')).toEqual([]);
    expect(checkEntry(df, 'y')).toHaveLength(1);
    expect(checkEntry(parseDockerfile('FROM node:22.21.1\nCMD node services/x/dist/main.js'), 'x')[0]).toMatch(
      /shell form/,
    );
    expect(checkUser(parseDockerfile('FROM node:22.21.1\nUSER 0:0'))[0]).toMatch(/is root/);
    expect(checkNpmCi(parseDockerfile('FROM node:22.21.1\nRUN npm install && npm ci'))[0]).toMatch(/npm install/);
    // A target merges its FROM chain: USER and ENV set in a shared base stage count for the target.
    const multi = parseDockerfile(
      [
        'FROM node:22.21.1 AS deps',
        'RUN npm ci',
        'FROM node:22.21.1 AS base',
        'USER 1000',
        'WORKDIR /app',
        'FROM base AS x',
        'COPY --from=deps /app/node_modules/ node_modules/',
        'ENTRYPOINT ["node", "services/x/dist/main.js"]',
        'FROM node:22.21.1 AS y',
      ].join('\n'),
    );
    expect(checkUser(targetView(multi, 'x'))).toEqual([]);
    expect(checkEntry(targetView(multi, 'x'), 'x')).toEqual([]);
    expect(checkUser(targetView(multi, 'y'))).toHaveLength(1);
    expect(checkProdDepsOnly(targetView(multi, 'x'))[0]).toMatch(/without --omit=dev/);
  });
  it('substitute arguments as Docker does: global ones in FROM, stage ones only after the stage declares them', () => {
    const text = [
      'ARG BASE=node:22.21.1',
      'FROM ${BASE} AS deps',
      'RUN npm ci --omit=dev --workspace=services/${TARGETSTAGE}',
      'FROM ${BASE} AS runtime',
      'ARG TARGETSTAGE',
      'ARG VERSION=1.0.0',
      'LABEL title="idp-${TARGETSTAGE}" version="${VERSION}"',
      'COPY --from=deps /app/services/${TARGETSTAGE}/ services/${TARGETSTAGE}/',
      'ENTRYPOINT ["node", "services/${TARGETSTAGE}/dist/main.js"]',
      'FROM runtime AS x',
      'COPY --from=deps /app/services/$TARGETSTAGE/ services/$TARGETSTAGE/',
      'FROM runtime AS y',
    ].join('\n');
    const df = parseDockerfile(text, { target: 'x', buildArgs: { UNDECLARED: 'z' } });
    expect(df.globalArgs).toEqual({ BASE: 'node:22.21.1' });
    expect(df.stages.map((s) => s.from)).toEqual(['node:22.21.1', 'node:22.21.1', 'runtime', 'runtime']);
    expect(df.stages[1].body.map((i) => i.args)).toEqual([
      'TARGETSTAGE',
      'VERSION=1.0.0',
      'title="idp-x" version="1.0.0"',
      '--from=deps /app/services/x/ services/x/',
      '["node", "services/${TARGETSTAGE}/dist/main.js"]',
    ]);
    // The RUN of deps and the COPY of x: TARGETSTAGE not declared in their stage; the ENTRYPOINT: never substituted.
    expect(checkVariables(df)).toEqual([
      expect.stringMatching(/^line 3: RUN uses TARGETSTAGE, an argument/),
      expect.stringMatching(/^line 9: ENTRYPOINT exec form does not expand TARGETSTAGE/),
      expect.stringMatching(/^line 11: COPY uses TARGETSTAGE, TARGETSTAGE, not an ARG/),
    ]);
    // A build argument overrides a global default; without a target, TARGETSTAGE is the last stage ("default" unnamed).
    expect(parseDockerfile(text, { buildArgs: { BASE: 'node:22.1.0' } }).stages[0].from).toBe('node:22.1.0');
    expect(parseDockerfile(text).stages[1].body[2].args).toBe('title="idp-y" version="1.0.0"');
    expect(parseDockerfile(`${text}\nFROM runtime`).stages[1].body[2].args).toBe('title="idp-default" version="1.0.0"');
    expect(checkVariables(parseDockerfile('ARG TAG\nFROM node:${TAG}'))).toEqual([
      expect.stringMatching(/^line 2: FROM node:\$\{TAG\} has no value/),
    ]);
  });

  it("refuse copying anything that holds a full install's node_modules into the runtime", () => {
    const df = parseDockerfile(
      [
        'FROM node:22.21.1 AS build',
        'WORKDIR /app',
        'RUN npm ci && npx tsc -b',
        'FROM node:22.21.1 AS runtime',
        'WORKDIR /app',
        'COPY --from=build /app/libs/ libs/',
        'COPY --from=build /app/libs/errors/dist/ libs/errors/dist/',
        'COPY --from=build /app/ ./',
      ].join('\n'),
    );
    expect(checkProdDepsOnly(df)).toEqual([
      expect.stringMatching(/^line 6: .*\/app\/libs holds node_modules/),
      expect.stringMatching(/^line 8: .*\/app holds node_modules/),
    ]);
  });

  it('find a RUN or COPY written twice, also when only the service differs', () => {
    expect(
      checkNoRepeats(
        'FROM a AS b\nRUN tsc -b services/x\nRUN tsc -b services/y\nFROM a AS c\nRUN tsc -b services/${S}',
        ['x', 'y'],
      ),
    ).toEqual(['line 5 repeats line 2: RUN tsc -b services/<service>']);
  });
});

/** The target skaffold.yaml builds each image from, by service (idp/<service>). */
const skaffoldTargets = (): Map<string, string | undefined> => {
  const skaffold = YAML.parse(readFileSync(join(repoRoot, 'skaffold.yaml'), 'utf8')) as {
    build: { artifacts: Array<{ image: string; docker?: { target?: string; buildArgs?: Record<string, string> } }> };
  };
  for (const a of skaffold.build.artifacts) {
    if (a.docker?.buildArgs && Object.keys(a.docker.buildArgs).length)
      throw new Error(`${a.image}: skaffold passes build arguments that these checks do not model`);
  }
  return new Map(skaffold.build.artifacts.map((a) => [a.image.replace(/^idp\//, ''), a.docker?.target]));
};

/** Every violation of `text` for the image of `service` built from `target`: the rules of the tests below. */
function violations(text: string, service: string, target: string | undefined): string[] {
  const df = parseDockerfile(text, { target });
  const view = targetView(df, target);
  return [
    ...checkPins(df),
    ...checkNpmCi(df),
    ...checkManifests(df),
    ...checkVariables(view),
    ...checkStages(view),
    ...checkRuntimeNode22(view),
    ...checkUser(view),
    ...checkEntry(view, service),
    ...checkNodeEnv(view),
    ...checkProdDepsOnly(view),
    ...checkShippedPackages(view, service),
    ...checkExpose(view, service),
    ...(service === 'management' ? checkConsole(view) : []),
  ];
}

describe('Dockerfile (root, one target per service)', () => {
  const path = join(repoRoot, 'Dockerfile');
  const text = readFileSync(path, 'utf8');
  const targets = skaffoldTargets();

  it('finds the services', () => {
    expect(services).toEqual(
      expect.arrayContaining(['audit-retention', 'audit-writer', 'management', 'nhe-delegation', 'oidc-core']),
    );
  });

  it('is the only Dockerfile: no per-service copies to drift from it', () => {
    expect(
      services
        .filter((s) => existsSync(join(servicesDir, s, 'Dockerfile')))
        .map((s) => `services/${s}/Dockerfile still exists`),
    ).toEqual([]);
  });

  it('writes no RUN or COPY twice (one set of stages for every service)', () =>
    expect(checkNoRepeats(text, services)).toEqual([]));

  it('has a target for every service, the one skaffold.yaml builds', () => {
    const stages = new Set(parseDockerfile(text).stages.map((s) => s.alias));
    expect(services.filter((s) => !stages.has(s)).map((s) => `no stage "${s}"`)).toEqual([]);
    expect(services.map((s) => [s, targets.get(s)])).toEqual(services.map((s) => [s, s]));
  });

  it('builds a service without --target too (the last stage is one)', () => {
    const last = parseDockerfile(text).stages.at(-1)?.alias as string;
    expect(services).toContain(last);
    expect(violations(text, last, undefined)).toEqual([]);
  });

  it('pins every base image to a full version tag or a digest', () =>
    expect(checkPins(parseDockerfile(text))).toEqual([]));
  it('installs with npm ci, never npm install', () => expect(checkNpmCi(parseDockerfile(text))).toEqual([]));
  it('copies every workspace manifest before each npm ci', () =>
    expect(checkManifests(parseDockerfile(text))).toEqual([]));

  describe.each(services)('target %s', (service) => {
    const view = () => targetView(parseDockerfile(text, { target: service }), service);

    it('uses every argument where its stage declares it', () => expect(checkVariables(view())).toEqual([]));
    it('has a build stage and a runtime stage', () => expect(checkStages(view())).toEqual([]));
    it('runs on a Node 22 image', () => expect(checkRuntimeNode22(view())).toEqual([]));
    it('runs as a non-root USER', () => expect(checkUser(view())).toEqual([]));
    it(`starts services/${service}/dist/main.js with node, exec form`, () =>
      expect(checkEntry(view(), service)).toEqual([]));
    it('sets NODE_ENV=production at runtime', () => expect(checkNodeEnv(view())).toEqual([]));
    it('ships production dependencies only', () => expect(checkProdDepsOnly(view())).toEqual([]));
    it('ships node_modules and the dist/ of the service and of every lib it references', () =>
      expect(checkShippedPackages(view(), service)).toEqual([]));
    it('exposes the default PORT of src/config.ts', () => expect(checkExpose(view(), service)).toEqual([]));
    if (service === 'management')
      it('serves the admin console (console/dist)', () => expect(checkConsole(view())).toEqual([]));
  });

  // The rules must not pass whatever the Dockerfile says: each of these edits of it breaks one, and is reported.
  const mutations: Array<[string, (t: string) => string]> = [
    ['TARGETSTAGE not declared in deps', (t) => t.replace(/(FROM manifests AS deps\n)ARG TARGETSTAGE\n/, '$1')],
    [
      'TARGETSTAGE not declared in the runtime stage',
      (t) => t.replace(/(FROM runtime-base AS service\n)ARG TARGETSTAGE\n/, '$1'),
    ],
    ['a root USER', (t) => t.replace('USER 1000:1000', 'USER root')],
    ['dev dependencies installed for the runtime', (t) => t.replace('npm ci --omit=dev', 'npm ci')],
    ['a lib missing from the production install', (t) => t.replace(/^\s*--workspace=libs\/tokens \\\n/m, '')],
    ['an unpinned base image', (t) => t.replace('node:22.21.1-bookworm-slim\n', 'node:22-bookworm-slim\n')],
    ['a workspace manifest missing before npm ci', (t) => t.replace('COPY docs/package.json docs/\n', '')],
    [
      'lib folders copied from the full install',
      (t) => t.replace('--from=build /dist/libs/', '--from=build /app/libs/'),
    ],
    [
      'an entry naming TARGETSTAGE in the exec form',
      (t) => t.replace('/app/services/oidc-core/dist/', '/app/services/${TARGETSTAGE}/dist/'),
    ],
    ['the console not copied', (t) => t.replace(/^COPY --from=console .*\n/m, '')],
    ['a port not exposed', (t) => t.replace('EXPOSE 3200\n', '')],
    [
      'a service stage copied per service',
      (t) =>
        t.replace(/^(FROM service AS signals\n)/m, '$1COPY --from=deps /app/services/signals/ services/signals/\n'),
    ],
  ];
  it.each(mutations)('reports a Dockerfile with %s', (_, mutate) => {
    const mutated = mutate(text);
    expect(mutated).not.toBe(text);
    const found = [...checkNoRepeats(mutated, services), ...services.flatMap((s) => violations(mutated, s, s))];
    expect(found).not.toEqual([]);
  });
  it('reports nothing for the Dockerfile as it is', () =>
    expect(services.flatMap((s) => violations(text, s, s))).toEqual([]));
});
