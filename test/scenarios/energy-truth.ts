// Energy per token against the simulator's own record (sim/gpu.ts): shared by the k6 tests that
// scrape its GPU exporter pages.
import assert from 'node:assert/strict';

export interface EnergyJson {
  energy: {
    runs: Array<{
      j_per_output_token: number | null;
      j_per_output_token_ci: [number, number] | null;
      gpus: number;
      energy_source: string;
      not_measured: string | null;
    }>;
  };
}

/**
 * The run's J/token against the simulator's energy meter: its exact joules between the first and
 * the last scrape of the exporter page (the probe's steady window) over the tokens it sent between
 * them. Within `tolerance` (a share).
 */
export async function energyAgainstTruth(
  s: EnergyJson,
  url: string,
  page: string,
  tolerance: number,
  events: Array<{ timeMs: number; tokens: number }>,
): Promise<void> {
  const e = s.energy.runs[0];
  assert.ok(e.j_per_output_token !== null, `energy measured: ${JSON.stringify(e)}`);
  const truth = (await (await fetch(`${url}/sim/gpu`)).json()) as { gpus: number; scrapes: Array<{ atMs: number; page: string; joules: number }> };
  const scrapes = truth.scrapes.filter((x) => x.page === page);
  const [first, last] = [scrapes[0], scrapes[scrapes.length - 1]];
  const tokens = events.filter((ev) => ev.timeMs >= first.atMs && ev.timeMs < last.atMs).reduce((a, ev) => a + ev.tokens, 0);
  const trueJPerToken = (last.joules - first.joules) / tokens;
  const gap = e.j_per_output_token / trueJPerToken - 1;
  console.log(`# J/token ${page}: measured ${e.j_per_output_token.toFixed(4)} vs simulator ${trueJPerToken.toFixed(4)} (${(gap * 100).toFixed(2)}%)`);
  assert.ok(Math.abs(gap) < tolerance, `J/token: measured ${e.j_per_output_token} vs the simulator's record ${trueJPerToken}`);
  assert.equal(e.gpus, truth.gpus, 'summed over every GPU');
}
