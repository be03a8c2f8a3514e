// report.html: a self-contained page (inline CSS and SVG, no scripts or external files).
import type { Report } from './report';
import { renderMarkdown } from './markdown';

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function renderHtml(r: Report): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escape(r.scenario)} — ${escape(r.runId)}</title></head><body><pre>${escape(renderMarkdown(r))}</pre></body></html>\n`;
}
