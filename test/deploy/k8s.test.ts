// The k6-operator TestRun manifest, checked against the operator's TestRun schema: the fields
// below are those of its published CRD (grafana/k6-operator config/crd/bases/k6.io_testruns.yaml,
// k6.io/v1alpha1), written out for the parts the manifest uses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { VARIABLES } from '../../lib/config/variables';

const ROOT = join(__dirname, '..', '..');

type Schema =
  | { type: 'object'; properties?: Record<string, Schema>; required?: string[]; open?: boolean }
  | { type: 'string'; enum?: string[] }
  | { type: 'integer' }
  | { type: 'boolean' }
  | { type: 'array'; items: Schema };

const ENV_VAR: Schema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string' },
    value: { type: 'string' },
    valueFrom: {
      type: 'object',
      properties: {
        secretKeyRef: { type: 'object', required: ['key'], properties: { name: { type: 'string' }, key: { type: 'string' }, optional: { type: 'boolean' } } },
        configMapKeyRef: {
          type: 'object',
          required: ['key'],
          properties: { name: { type: 'string' }, key: { type: 'string' }, optional: { type: 'boolean' } },
        },
      },
    },
  },
};

const TESTRUN: Schema = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    apiVersion: { type: 'string', enum: ['k6.io/v1alpha1'] },
    kind: { type: 'string', enum: ['TestRun'] },
    metadata: { type: 'object', open: true },
    spec: {
      type: 'object',
      required: ['parallelism', 'script'],
      properties: {
        args: { type: 'string' },
        arguments: { type: 'string' },
        cleanup: { type: 'string', enum: ['post'] },
        initializer: { type: 'object', open: true },
        parallelism: { type: 'integer' },
        paused: { type: 'string' },
        ports: { type: 'array', items: { type: 'object', open: true } },
        quiet: { type: 'string' },
        runner: {
          type: 'object',
          properties: {
            image: { type: 'string' },
            imagePullPolicy: { type: 'string' },
            env: { type: 'array', items: ENV_VAR },
            envFrom: { type: 'array', items: { type: 'object', open: true } },
            resources: {
              type: 'object',
              properties: {
                claims: { type: 'array', items: { type: 'object', open: true } },
                limits: { type: 'object', open: true },
                requests: { type: 'object', open: true },
              },
            },
            volumeMounts: { type: 'array', items: { type: 'object', required: ['mountPath', 'name'], open: true } },
            volumes: { type: 'array', items: { type: 'object', required: ['name'], open: true } },
            nodeSelector: { type: 'object', open: true },
            serviceAccountName: { type: 'string' },
            metadata: { type: 'object', open: true },
          },
        },
        script: {
          type: 'object',
          properties: {
            configMap: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, file: { type: 'string' } } },
            volumeClaim: {
              type: 'object',
              required: ['name'],
              properties: { name: { type: 'string' }, file: { type: 'string' }, readOnly: { type: 'boolean' } },
            },
            localFile: { type: 'string' },
          },
        },
        scuttle: { type: 'object', open: true },
        separate: { type: 'boolean' },
        starter: { type: 'object', open: true },
        testRunId: { type: 'string' },
        token: { type: 'string' },
      },
    },
  },
};

function validate(v: unknown, s: Schema, at: string): string[] {
  const errs: string[] = [];
  switch (s.type) {
    case 'object': {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return [`${at}: expected an object`];
      const o = v as Record<string, unknown>;
      for (const r of s.required ?? []) if (!(r in o)) errs.push(`${at}.${r}: required`);
      if (s.properties) {
        for (const [k, x] of Object.entries(o)) {
          if (s.properties[k]) errs.push(...validate(x, s.properties[k], `${at}.${k}`));
          else if (!s.open) errs.push(`${at}.${k}: not a field of the TestRun schema`);
        }
      }
      return errs;
    }
    case 'array':
      return Array.isArray(v) ? v.flatMap((x, i) => validate(x, s.items, `${at}[${i}]`)) : [`${at}: expected a list`];
    case 'string':
      if (typeof v !== 'string') return [`${at}: expected a string (quote numbers in YAML)`];
      return s.enum && !s.enum.includes(v) ? [`${at}: one of ${s.enum.join(', ')}`] : [];
    case 'integer':
      return Number.isInteger(v) ? [] : [`${at}: expected an integer`];
    case 'boolean':
      return typeof v === 'boolean' ? [] : [`${at}: expected true or false`];
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed manifest, checked by validate() first
const manifest = parse(readFileSync(join(ROOT, 'deploy', 'k8s', 'testrun-dflash-vs-mtp.yaml'), 'utf8')) as Record<string, any>;

test('the TestRun fits the k6-operator schema', () => {
  assert.deepEqual(validate(manifest, TESTRUN, 'TestRun'), []);
  // The validator itself rejects what the operator would.
  assert.deepEqual(validate({ ...manifest, spec: { ...manifest.spec, parallelism: '4', replicas: 2 } }, TESTRUN, 'TestRun'), [
    'TestRun.spec.parallelism: expected an integer',
    'TestRun.spec.replicas: not a field of the TestRun schema',
  ]);
});

test('the runners are one run: several instances, one testid, partials to a shared volume, every variable known and no key in clear', () => {
  const spec = manifest.spec;
  assert.ok(spec.parallelism >= 2);
  assert.match(spec.arguments, /--out experimental-prometheus-rw/);
  const testid = /--tag testid=(\S+)/.exec(spec.arguments)?.[1];
  const env = Object.fromEntries((spec.runner.env as Array<{ name: string; value?: string; valueFrom?: unknown }>).map((e) => [e.name, e]));
  assert.equal(env.RUN_ID.value, testid, 'the run id is the testid');
  assert.equal(env.PARTIAL.value, 'true');
  const mount = spec.runner.volumeMounts.find((m: { mountPath: string }) => m.mountPath === env.RESULTS_DIR.value);
  assert.ok(mount, 'RESULTS_DIR is a mounted volume');
  assert.ok(
    spec.runner.volumes.some((v: { name: string; persistentVolumeClaim?: unknown }) => v.name === mount.name && v.persistentVolumeClaim),
    'shared by the runners',
  );
  const known = new Set(VARIABLES.map((v) => v.name));
  for (const name of Object.keys(env)) assert.ok(known.has(name) || name.startsWith('K6_'), `${name} is not a variable of the suite`);
  for (const v of VARIABLES.filter((x) => x.secret)) if (env[v.name]) assert.ok(env[v.name].valueFrom && !env[v.name].value, `${v.name} comes from a Secret`);
  assert.equal(spec.script.configMap.file, 'dflash-vs-mtp.js');
});
