// A merged run's instances (k6 on several hosts): each one's clock offset against the server host,
// the round trip it was measured over, and how its per-slice figures were aligned to the lead
// instance's (lib/report/align-instances.ts). Only in a report merged from partials.
import type { InstanceRow } from '../align-instances';
import { mdTable } from '../render/report-format';
import { htmlSection, clientTable, legendNote } from '../render/html-parts';
import type { ReportSection } from './section';

const HEAD = ['instance', 'segment', 'clock offset (ms)', 'round trip (ms)', 'start after the lead (ms)', 'slices moved'];
const ms = (v: number | null) => (v === null ? 'not measured' : v.toFixed(2));
const offset = (r: InstanceRow) =>
  r.clock_offset_ms === null
    ? `not measured (${r.not_measured})`
    : `${ms(r.clock_offset_ms)} ± ${ms(r.bound_ms)}${r.method === 'http-date' ? ' (Date header: coarse)' : ''}`;
const cells = (r: InstanceRow) => [r.host, r.segment ?? 'whole', offset(r), ms(r.round_trip_ms), ms(r.start_after_lead_ms), String(r.shift_slices)];
const LEGEND =
  "Each instance's clock against the server host's (offset = server − local, from the shortest of " +
  'several exchanges), applied where their per-slice figures are added up.';

export const instances: ReportSection<InstanceRow[]> = {
  key: 'instances',
  jsonKey: 'instances',
  slot: 'checks',
  build: ({ data }) => {
    const rows = data.setup_data?.instances;
    return rows && rows.length > 0 ? rows : null;
  },
  text: (rows) => [
    '',
    'Instances (clock offsets against the server host):',
    ...rows.map((r) => `  ${r.host} (${r.segment ?? 'whole'}): offset ${offset(r)}, round trip ${ms(r.round_trip_ms)} ms, slices moved ${r.shift_slices}`),
  ],
  markdown: (rows) => ['## Instances', '', LEGEND, '', mdTable(HEAD, rows.map(cells)), ''],
  html: (rows) => htmlSection('Instances', legendNote(LEGEND) + clientTable({ head: HEAD, rows: rows.map(cells) })),
  json: (rows) => rows,
};
