// One benchmark from two client hosts against one server host (scripts/test-hosts.sh --clients 2:
// three network namespaces, a shaped link from each client host to the server host): two k6
// instances, execution segments 0:1/2 and 1/2:1, each on its own client host, each measuring its
// clock against the simulator's before its load; their partials merged (npm run merge). The merged
// run counts every request the simulator recorded, and reports both instances' clock offsets. All
// namespaces share one kernel clock, so the true offset is 0: each measured offset lies within its
// bound (half the round trip of its best exchange, plus half k6's 1 ms clock step), and that round trip
// crossed the link (at least the link's own).
//
// CI: one run of 4 s over a 10 ms link, TRANSPORT=http, about 13 s (the hosts, the simulator, two
// k6 at once and the merge). TEST_LONG=1 adds a 50 ms link with TRANSPORT=sse. Needs root and
// iproute2; skipped with the reason where it cannot make the hosts.
// test-runner: alone (the clock exchanges' round trips are latencies)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { explain, ROOT, RUNNERS, type Runner } from './harness';
import { hostsDown, hostsUnavailable, hostsUp } from '../net/test-hosts';
import { k6OnClient, simOnServer } from './hosts-sim';
import { runK6 } from '../../scripts/k6-runtime';
import { mergeFiles } from '../../scripts/merge';
import type { InstanceRow } from '../../lib/clock/instance';

// Of this process: two checkouts running the test at once make hosts of their own.
const NAME = `k6m${process.pid % 10000}`;
const CASES: Array<{ rttMs: number; transport: 'http' | 'sse' }> = [
  { rttMs: 10, transport: 'http' },
  ...(process.env.TEST_LONG === '1' ? [{ rttMs: 50, transport: 'sse' as const }] : []),
];
const OSL = 16;
const SEGMENTS = ['0:1/2', '1/2:1'];

interface Merged {
  records: Array<{ requests: number; requests_failed: number }>;
  instances: InstanceRow[] | null;
}

async function twoHosts(runner: Runner, rttMs: number, transport: 'http' | 'sse'): Promise<void> {
  const { env: hosts, said } = hostsUp(NAME, ['--clients', '2', '--rtt', String(rttMs), '--net', '10.253.0']);
  console.log(said);
  try {
    const sim = await simOnServer(hosts.TEST_HOSTS_SERVER, hosts.TEST_HOSTS_SERVER_ADDR);
    try {
      const cwd = mkdtempSync(join(tmpdir(), 'two-hosts-'));
      const env = {
        TARGET_URL: sim.url,
        DIALECT: 'openai',
        ISL: '64',
        OSL: String(OSL),
        CONCURRENCY: '4',
        DURATION: '4s',
        SLICES: '2',
        STREAM: 'true',
        REQUEST_TIMEOUT: '10s',
        GRACEFUL_STOP: '5s',
        WARMUP_REQUESTS: '0',
        SERVER_METRICS: 'off',
        PARTIAL: 'true',
        RESULTS_DIR: '.',
        RUN_ID: 'two',
      };
      const bundle = join(ROOT, transport === 'sse' ? 'dist/sse' : 'dist', 'context-matrix.js');
      const results = await Promise.all(
        SEGMENTS.map((segment, i) =>
          runK6(bundle, {
            bin: k6OnClient(runner, hosts[`TEST_HOSTS_CLIENT${i + 1}`]),
            cwd,
            env: { ...env, INSTANCE_NAME: `client${i + 1}` },
            executionSegment: segment,
            executionSegmentSequence: '0,1/2,1',
            timeoutMs: 90_000,
            quiet: true,
          }),
        ),
      );
      for (const result of results) assert.equal(result.exitCode, 0, explain({ result, summary: null, wallMs: 0 }));
      const partials = ['0-1_2', '1_2-1'].map((s) => join(cwd, `two.segment-${s}.partial.json`));
      for (const p of partials) assert.ok(existsSync(p), `${p} was written`);
      const merged = mergeFiles(partials, cwd);
      const m = JSON.parse(readFileSync(join(cwd, 'two.summary.json'), 'utf8')) as Merged;
      const recorded = sim.requests().filter((r) => r.maxNewTokens === OSL && r.finishMs !== null && r.errorClass === null).length;
      console.log(
        `two hosts, rtt ${rttMs} ms, TRANSPORT=${transport}: ${m.records[0].requests} requests merged, ${recorded} ` +
          `recorded by the simulator; instances ${JSON.stringify(m.instances)}`,
      );
      assert.equal(m.records[0].requests_failed, 0);
      assert.equal(m.records[0].requests, recorded, "the merged run's requests are the simulator's record");
      assert.match(merged.text, /Instances \(clock offsets against the server host\)/);
      assert.ok(m.instances, 'summary.json: no instances');
      assert.deepEqual(
        m.instances.map((r) => [r.host, r.segment, r.server, r.method]),
        SEGMENTS.map((s, i) => [`client${i + 1}`, s, sim.url.replace('http://', ''), 'time-route']),
      );
      for (const r of m.instances) {
        assert.ok(r.clock_offset_ms !== null && r.round_trip_ms !== null && r.bound_ms !== null, `${r.host}: not measured (${r.not_measured})`);
        // One kernel clock: the true offset is 0, so the measured one is within its own bound.
        assert.ok(Math.abs(r.clock_offset_ms) <= r.bound_ms, `${r.host}: offset ${r.clock_offset_ms} ms beyond ± ${r.bound_ms}`);
        assert.equal(r.bound_ms, r.round_trip_ms / 2 + 0.5, `${r.host}: the bound is half the round trip and half k6's clock step`);
        // The exchange crossed the client host's own link (k6's clock reads whole ms).
        assert.ok(r.round_trip_ms >= rttMs - 1, `${r.host}: round trip ${r.round_trip_ms} ms over a ${rttMs} ms link`);
        // Started together, on one clock: no slice moved.
        assert.equal(r.shift_slices, 0, `${r.host}: started ${r.start_after_lead_ms} ms after the lead`);
      }
    } finally {
      await sim.stop();
    }
  } finally {
    hostsDown(NAME);
  }
}

const why = hostsUnavailable();
for (const runner of RUNNERS) {
  describe(`two client hosts, one server host, on ${runner.name}`, { skip: runner.skip ?? why ?? undefined }, () => {
    for (const c of CASES)
      test(
        `rtt ${c.rttMs} ms, TRANSPORT=${c.transport}: two k6 instances merged, every request the simulator recorded, both clock offsets within their bound`,
        { skip: c.transport === 'sse' ? (runner.sseSkip ?? undefined) : undefined },
        () => twoHosts(runner, c.rttMs, c.transport),
      );
  });
}
