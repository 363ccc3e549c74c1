// A small SVG writer for the benchmarks' curves: stacked panels, one series each, over a shared
// time axis, with the panel's scale and an optional limit line. No dependency, no network.

export interface Panel {
  title: string;
  unit: string;
  /** [seconds since start, value] */
  points: [number, number][];
  /** A horizontal line the series must stay under (a target), when there is one. */
  limit?: { value: number; label: string };
}

const WIDTH = 820;
const PANEL_HEIGHT = 150;
const MARGIN = { left: 70, right: 40, top: 28, bottom: 26 };

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const label = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));

/** The panels as one SVG document, titled `title`. */
export function svgPlot(title: string, panels: Panel[]): string {
  const endTime = Math.max(1, ...panels.flatMap((panel) => panel.points.map(([t]) => t)));
  const height = 40 + panels.length * (PANEL_HEIGHT + MARGIN.top + MARGIN.bottom);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${escape(title)}</text>`,
  ];
  panels.forEach((panel, index) => {
    const top = 40 + index * (PANEL_HEIGHT + MARGIN.top + MARGIN.bottom) + MARGIN.top;
    const left = MARGIN.left;
    const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
    const values = panel.points.map(([, v]) => v);
    const high = Math.max(...values, panel.limit?.value ?? 0) * 1.1 || 1;
    const x = (t: number) => left + (t / endTime) * plotWidth;
    const y = (v: number) => top + PANEL_HEIGHT - (v / high) * PANEL_HEIGHT;
    parts.push(`<text x="${left}" y="${top - 8}" font-weight="bold">${escape(`${panel.title} (${panel.unit})`)}</text>`);
    parts.push(`<rect x="${left}" y="${top}" width="${plotWidth}" height="${PANEL_HEIGHT}" fill="none" stroke="#999"/>`);
    for (const fraction of [0, 0.5, 1]) {
      const value = high * fraction;
      parts.push(`<text x="${left - 6}" y="${y(value) + 4}" text-anchor="end" fill="#555">${label(value)}</text>`);
      if (fraction > 0) parts.push(`<line x1="${left}" x2="${left + plotWidth}" y1="${y(value)}" y2="${y(value)}" stroke="#eee"/>`);
    }
    for (const fraction of [0, 0.25, 0.5, 0.75, 1]) {
      const t = endTime * fraction;
      parts.push(`<text x="${x(t)}" y="${top + PANEL_HEIGHT + 16}" text-anchor="middle" fill="#555">${(t / 60).toFixed(1)} min</text>`);
    }
    if (panel.limit) {
      parts.push(`<line x1="${left}" x2="${left + plotWidth}" y1="${y(panel.limit.value)}" y2="${y(panel.limit.value)}" stroke="#c33" stroke-dasharray="6 4"/>`);
      parts.push(`<text x="${left + plotWidth - 4}" y="${y(panel.limit.value) - 4}" text-anchor="end" fill="#c33">${escape(panel.limit.label)}</text>`);
    }
    const line = panel.points.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    parts.push(`<polyline points="${line}" fill="none" stroke="#1f5fa8" stroke-width="1.8"/>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
