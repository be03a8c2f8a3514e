// The GitHub Actions rules that matter for this project's workflows, as pure checks over a parsed
// workflow: each returns the problems it finds, so the rules themselves are tested on bad input.
import { parseDocument } from 'yaml';

export type Workflow = Record<string, unknown>;

export function parseWorkflow(text: string): Workflow {
  // YAML 1.2 (the yaml package's default) keeps `on` a string key, as GitHub reads it.
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) throw new Error(doc.errors.map((e) => e.message).join('\n'));
  const js = doc.toJS() as unknown;
  if (typeof js !== 'object' || js === null || Array.isArray(js)) throw new Error('a workflow is a mapping');
  return js as Workflow;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const TOP_KEYS = new Set(['name', 'run-name', 'on', 'permissions', 'env', 'defaults', 'concurrency', 'jobs']);
const JOB_KEYS = new Set([
  'name',
  'runs-on',
  'needs',
  'if',
  'permissions',
  'environment',
  'concurrency',
  'outputs',
  'env',
  'defaults',
  'steps',
  'timeout-minutes',
  'strategy',
  'continue-on-error',
  'container',
  'services',
  'uses',
  'with',
  'secrets',
]);
const STEP_KEYS = new Set(['id', 'if', 'name', 'uses', 'run', 'shell', 'with', 'env', 'continue-on-error', 'timeout-minutes', 'working-directory']);
const EVENTS = new Set([
  'push',
  'pull_request',
  'pull_request_target',
  'schedule',
  'workflow_dispatch',
  'workflow_call',
  'workflow_run',
  'release',
  'merge_group',
]);
const INPUT_TYPES = new Set(['string', 'choice', 'boolean', 'number', 'environment']);
const CONTEXTS = new Set(['github', 'env', 'vars', 'secrets', 'inputs', 'job', 'jobs', 'steps', 'runner', 'matrix', 'needs', 'strategy']);

/** Checks one POSIX cron field: *, N, A-B, with optional /STEP, comma lists, names for month/day. */
function cronField(field: string, min: number, max: number, names: string[]): string | null {
  const value = (s: string): number | null => {
    const i = names.indexOf(s.toUpperCase());
    if (i >= 0) return i + (min === 1 ? 1 : 0);
    return /^\d+$/.test(s) ? Number(s) : null;
  };
  for (const item of field.split(',')) {
    const m = /^(\*|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)(?:\/(\d+))?$/.exec(item);
    if (!m) return `'${item}' is not *, N, A-B or a list of them (with /STEP)`;
    if (m[2] !== undefined && Number(m[2]) < 1) return `step of '${item}' must be at least 1`;
    if (m[1] === '*') continue;
    for (const part of (m[1] as string).split('-')) {
      const v = value(part);
      if (v === null || v < min || v > max) return `'${part}' is outside ${min}-${max}`;
    }
  }
  return null;
}

export function cronProblems(cron: string): string[] {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) return [`cron '${cron}' has ${fields.length} fields, expected 5 (minute hour day month weekday)`];
  const spec: [string, number, number, string[]][] = [
    ['minute', 0, 59, []],
    ['hour', 0, 23, []],
    ['day of month', 1, 31, []],
    ['month', 1, 12, ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC']],
    ['day of week', 0, 6, ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT']],
  ];
  const out: string[] = [];
  fields.forEach((f, i) => {
    const [name, min, max, names] = spec[i] as [string, number, number, string[]];
    const p = cronField(f, min, max, names);
    if (p) out.push(`cron '${cron}' ${name}: ${p}`);
  });
  return out;
}

/** Every string in the document, with its path (e.g. jobs.test.steps[3].run). */
export function strings(v: unknown, path = ''): { path: string; value: string }[] {
  if (typeof v === 'string') return [{ path, value: v }];
  if (Array.isArray(v)) return v.flatMap((x, i) => strings(x, `${path}[${i}]`));
  if (isObj(v)) return Object.entries(v).flatMap(([k, x]) => strings(x, path ? `${path}.${k}` : k));
  return [];
}

export function expressions(s: string): string[] {
  return [...s.matchAll(/\$\{\{([\s\S]*?)\}\}/g)].map((m) => (m[1] as string).trim());
}

/** context.property references in an expression (string literals removed first). */
export function references(expr: string): { context: string; prop: string }[] {
  const bare = expr.replace(/'(?:[^']|'')*'/g, "''");
  return [...bare.matchAll(/(?<![\w.])([a-z_]+)\.([A-Za-z_][\w-]*)/g)].map((m) => ({ context: m[1] as string, prop: m[2] as string }));
}

function declaredInputs(wf: Workflow): Set<string> {
  const on = wf.on;
  const out = new Set<string>();
  if (isObj(on))
    for (const ev of ['workflow_dispatch', 'workflow_call']) {
      const e = on[ev];
      if (isObj(e) && isObj(e.inputs)) for (const k of Object.keys(e.inputs)) out.add(k);
    }
  return out;
}

/** Environment variables (any level) whose value comes from a secret. */
export function secretEnvNames(wf: Workflow): Set<string> {
  const out = new Set<string>();
  for (const s of strings(wf)) {
    const m = /(?:^|\.)env\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(s.path);
    if (m && expressions(s.value).some((e) => references(e).some((r) => r.context === 'secrets'))) out.add(m[1] as string);
  }
  return out;
}

/** Structure: keys, events, cron, inputs, jobs, steps, pinned actions. */
export function structureProblems(wf: Workflow): string[] {
  const out: string[] = [];
  for (const k of Object.keys(wf)) if (!TOP_KEYS.has(k)) out.push(`unknown top-level key '${k}'`);
  if (!('on' in wf)) out.push("no 'on'");
  const on = wf.on;
  const events = typeof on === 'string' ? [on] : Array.isArray(on) ? on : isObj(on) ? Object.keys(on) : [];
  for (const e of events) if (!EVENTS.has(String(e))) out.push(`unknown event '${String(e)}'`);
  if (isObj(on)) {
    if ('schedule' in on) {
      const sch = on.schedule;
      if (!Array.isArray(sch) || sch.length === 0) out.push('schedule must be a list of {cron}');
      else
        for (const item of sch) {
          if (!isObj(item) || typeof item.cron !== 'string') out.push('schedule item without a cron string');
          else out.push(...cronProblems(item.cron));
        }
    }
    const wd = on.workflow_dispatch;
    if (isObj(wd) && wd.inputs !== undefined) {
      if (!isObj(wd.inputs)) out.push('workflow_dispatch.inputs must be a mapping');
      else
        for (const [name, def] of Object.entries(wd.inputs)) {
          if (!isObj(def)) {
            out.push(`input ${name} must be a mapping`);
            continue;
          }
          const type = def.type ?? 'string';
          if (!INPUT_TYPES.has(String(type))) out.push(`input ${name}: unknown type '${String(type)}'`);
          if (type === 'choice') {
            if (!Array.isArray(def.options) || def.options.length === 0) out.push(`input ${name}: a choice needs options`);
            else if (def.default !== undefined && !def.options.map(String).includes(String(def.default)))
              out.push(`input ${name}: default '${String(def.default)}' is not an option`);
          }
          if (typeof def.description !== 'string' || def.description === '') out.push(`input ${name}: no description`);
        }
    }
  }
  if (!isObj(wf.jobs) || Object.keys(wf.jobs).length === 0) {
    out.push('no jobs');
    return out;
  }
  for (const [id, job] of Object.entries(wf.jobs)) {
    if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(id)) out.push(`job id '${id}' must start with a letter or _ and hold letters, digits, - or _`);
    if (!isObj(job)) {
      out.push(`job ${id} is not a mapping`);
      continue;
    }
    for (const k of Object.keys(job)) if (!JOB_KEYS.has(k)) out.push(`job ${id}: unknown key '${k}'`);
    if (job.uses !== undefined) continue; // a reusable-workflow call has no runs-on or steps
    if (job['runs-on'] === undefined) out.push(`job ${id}: no runs-on`);
    if (!Array.isArray(job.steps) || job.steps.length === 0) {
      out.push(`job ${id}: no steps`);
      continue;
    }
    job.steps.forEach((step: unknown, i: number) => {
      const where = `job ${id} step ${i + 1}`;
      if (!isObj(step)) {
        out.push(`${where} is not a mapping`);
        return;
      }
      for (const k of Object.keys(step)) if (!STEP_KEYS.has(k)) out.push(`${where}: unknown key '${k}'`);
      const hasUses = typeof step.uses === 'string';
      const hasRun = typeof step.run === 'string';
      if (hasUses === hasRun) out.push(`${where}: needs exactly one of uses and run`);
      if (step.with !== undefined && !hasUses) out.push(`${where}: 'with' without 'uses'`);
      if (hasUses) {
        const uses = step.uses as string;
        const local = uses.startsWith('./') || uses.startsWith('docker://');
        if (!local && !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+(\/[A-Za-z0-9_./-]+)?@(v\d+(\.\d+){0,2}|[0-9a-f]{40})$/.test(uses)) {
          out.push(`${where}: '${uses}' is not pinned to a version tag (vN, vN.N, vN.N.N) or a commit`);
        }
      }
    });
  }
  return out;
}

/** Expressions: known contexts, declared inputs, secrets only where they cannot leak. */
export function expressionProblems(wf: Workflow): string[] {
  const out: string[] = [];
  const inputs = declaredInputs(wf);
  for (const s of strings(wf)) {
    for (const e of expressions(s.value)) {
      for (const r of references(e)) {
        if (!CONTEXTS.has(r.context)) {
          // Only flag identifiers that look like contexts; fromJSON(x).y etc. are not context references.
          if (/^[a-z]+$/.test(r.context) && !['true', 'false', 'null'].includes(r.context))
            out.push(`${s.path}: unknown context '${r.context}' in \${{ ${e} }}`);
          continue;
        }
        if (r.context === 'inputs' && !inputs.has(r.prop)) out.push(`${s.path}: inputs.${r.prop} is not a declared input`);
        if (r.context === 'secrets') {
          // Secrets go into env or with; a run script or an if would expand them into the script or
          // are not allowed there at all.
          if (!/(^|\.)(env|with)\.[^.[\]]+$/.test(s.path)) out.push(`${s.path}: secrets.${r.prop} outside env/with`);
        }
      }
    }
  }
  return out;
}

/** Secret-looking variables must come from secrets, and no run script may print them. */
export function secretProblems(wf: Workflow): string[] {
  const out: string[] = [];
  const secretEnv = secretEnvNames(wf);
  for (const s of strings(wf)) {
    const m = /(?:^|\.)env\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(s.path);
    if (m && /(API_KEY|TOKEN|PASSWORD|SECRET)$/.test(m[1] as string) && !expressions(s.value).some((e) => references(e).some((r) => r.context === 'secrets'))) {
      out.push(`${s.path}: a secret-looking variable not taken from secrets`);
    }
    if (!/(^|\.)run$/.test(s.path)) continue;
    const lines = s.value.split('\n');
    lines.forEach((line, i) => {
      const code = line.replace(/^\s*#.*$/, '');
      if (/\bset\s+-[a-z]*x/.test(code) || /\bbash\s+-[a-z]*x/.test(code)) out.push(`${s.path} line ${i + 1}: shell tracing prints every expanded variable`);
      if (/\b(printenv|env)\s*($|\|)/.test(code)) out.push(`${s.path} line ${i + 1}: dumps the environment`);
      if (/\b(echo|printf|cat)\b/.test(code)) {
        for (const name of secretEnv) {
          if (new RegExp(`\\$\\{?${name}\\b`).test(code)) out.push(`${s.path} line ${i + 1}: prints $${name}, which holds a secret`);
        }
      }
    });
  }
  return out;
}

export function allProblems(wf: Workflow): string[] {
  return [...structureProblems(wf), ...expressionProblems(wf), ...secretProblems(wf)];
}
