// Is the load generator, not the server, setting the numbers? Per run, the client's overhead over
// the server's own figures, the VUs' gap between requests and dropped iterations (figures/client-overhead.ts
// judges each run once, in runFigures). A view of the runs: it builds nothing of its own, and
// summary.json carries it in each record (client_check).
import { CLIENT_LIMITED_ADVICE, CLOCK_RESOLUTION_MS } from '../figures/client-overhead';
import { display } from '../figures/ab-comparison';
import { fmtMs, loadLabel, mdTable } from '../render/report-format';
import { htmlSection, clientTable } from '../render/html-parts';
import type { ConnectionFigures, RunFigures } from '../figures/run-figures';
import { esc } from '../render/svg/common';
import type { ReportSection } from './section';

/** The network's share: requests on a new connection and its connect (one round trip) and TLS time. */
function connectionCell(c: ConnectionFigures | null): string {
  if (c === null) return 'not measured';
  const tls = c.tls === null ? '' : `, TLS ${fmtMs(c.tls.p50)}`;
  return `${c.opened} of ${c.requests} new${c.connect === null ? '' : `: connect ${fmtMs(c.connect.p50)}${tls}`}`;
}

/** The client self-check as table rows: cell, variant, e2e and TTFT overhead, VU gap, dropped, verdict. */
function clientRows(runs: RunFigures[]): string[][] {
  return runs.map((x) => {
    const c = x.client;
    const signed = (v: number | null) => (v === null ? '–' : `${v >= 0 ? '+' : ''}${v.toFixed(1)} ms`);
    return [
      `${x.isl}/${x.osl} ${loadLabel(x.load)}`,
      x.variant,
      signed(c.e2eOverheadMs),
      signed(c.ttftOverheadMs),
      connectionCell(x.connection ?? null),
      c.gap === null ? '–' : `${fmtMs(c.gap.avg)} / ${fmtMs(c.gap.p99)}`,
      String(c.dropped),
      [c.held === null ? '' : 'held by the network', c.limited.length > 0 ? `client-limited: ${c.limited.join('; ')}` : ''].filter(Boolean).join('; ') || 'ok',
    ];
  });
}

const CLIENT_HEAD = ['cell', 'variant', 'e2e overhead', 'TTFT overhead', 'connections (p50)', 'VU gap avg / p99', 'dropped', 'verdict'];

/** One line per client-limited run, the advice, one per run the network held, and the quantised-ITL note; empty when all is well. */
function clientLines(runs: RunFigures[]): string[] {
  const out = runs.filter((x) => x.client.limited.length > 0).map((x) => `${x.variant} ${x.cellId}: client-limited: ${x.client.limited.join('; ')}`);
  if (out.length > 0) out.push(`How to fix: ${CLIENT_LIMITED_ADVICE}`);
  for (const x of runs) if (x.client.held !== null) out.push(`${x.variant} ${x.cellId}: ${x.client.held}`);
  if (runs.some((x) => x.client.itlQuantised)) {
    out.push(
      `ITL percentiles under ${2 * CLOCK_RESOLUTION_MS} ms are quantised by k6's ${CLOCK_RESOLUTION_MS} ms clock (Date.now()); the ITL means are exact.`,
    );
  }
  return out;
}

const numeric = (j: number) => j >= 2 && j <= 6;

export const clientSelfCheck: ReportSection<RunFigures[]> = {
  key: 'runs',
  jsonKey: 'client_check',
  slot: 'checks',
  build: ({ runs }) => runs,
  text(runs) {
    const lines = clientLines(runs);
    return lines.length > 0 ? ['', 'Client self-check:', ...lines.map((l) => `  ${l}`)] : [];
  },
  markdown(runs) {
    if (runs.length === 0) return [];
    const lines = clientLines(runs);
    return [
      '## Client self-check',
      '',
      "Client mean minus the server's own over the steady window (client + network overhead), the network's " +
        'share (requests that opened a connection, its TCP connect: one round trip, and TLS handshake; each ' +
        'request also waits one round trip for its reply; not measured over xk6-sse, which opens a connection ' +
        'per request and gives no phases), and the time each VU spends between requests: when they are large, ' +
        'the load generator, not the server, set the numbers.',
      '',
      mdTable(CLIENT_HEAD, clientRows(runs)),
      '',
      ...(lines.length ? [...lines.map((l) => `- ${l}`), ''] : []),
    ];
  },
  html(runs) {
    if (runs.length === 0) return '';
    const lines = clientLines(runs);
    return htmlSection(
      'Client self-check',
      `<p class="legend-note">Client mean minus the server's own over the steady window (client + network ` +
        `overhead), the network's share (requests that opened a connection, its TCP connect: one round trip, ` +
        `and TLS handshake; each request also waits one round trip for its reply; not measured over xk6-sse, ` +
        `which opens a connection per request and gives no phases), and the time each VU spends between ` +
        `requests. A run is client-limited when the overhead passes max(5 ms, 2 %): then the load generator, ` +
        `not the server, set its numbers.</p>` +
        clientTable({
          head: CLIENT_HEAD,
          rows: clientRows(runs),
          numeric,
          show: (c, j) => (j === 1 ? display(c) : c),
          rowClass: (i) => (runs[i].client.limited.length || runs[i].client.held !== null ? 'limited' : ''),
        }) +
        (lines.length ? `<ul class="legend-note">${lines.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>` : ''),
    );
  },
  json: () => undefined,
};
