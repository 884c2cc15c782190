/**
 * The analytics pages' charts, served as charts.js after uPlot (uplot.js).
 * Each element with data-chart (JSON: granularity, dates, series) becomes a line chart: times
 * in UTC as the reports count them, whole numbers on the y axis, colours from the stylesheet's
 * variables (so light and dark schemes both read, and a change of scheme redraws), resized with
 * its container. Once drawn, the chart's data table (open for pages without scripts) folds away.
 */
(() => {
  if (typeof uPlot !== 'function') return;
  const INTEGER_STEPS = [
    1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 2e7, 5e7, 1e8,
  ];
  const heightFor = (width) => Math.round(Math.min(320, Math.max(200, width * 0.38)));
  const seconds = (key) => Date.parse(key.length === 10 ? key + 'T00:00:00Z' : key) / 1000;
  const number = (value) => (value == null ? '–' : value.toLocaleString('en-US'));
  const dayOf = (ts) => new Date(ts * 1000).toISOString().slice(0, 10);
  const hourOf = (ts) => new Date(ts * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

  function options(element, data) {
    const style = getComputedStyle(document.documentElement);
    const colour = (name) => style.getPropertyValue(name).trim();
    const axis = {
      stroke: colour('--muted'),
      grid: { stroke: colour('--line'), width: 1 },
      ticks: { stroke: colour('--line'), width: 1 },
      font: '12px system-ui, sans-serif',
    };
    const width = element.clientWidth;
    return {
      width,
      height: heightFor(width),
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      cursor: { drag: { x: false, y: false, setScale: false } },
      legend: { live: false },
      scales: { x: { time: true }, y: { range: (plot, min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
      axes: [axis, { ...axis, size: 56, incrs: INTEGER_STEPS, values: (plot, ticks) => ticks.map(number) }],
      series: [
        {
          label: data.granularity === 'hour' ? 'Hour' : 'Date',
          value: (plot, ts) => (ts == null ? '–' : data.granularity === 'hour' ? hourOf(ts) : dayOf(ts)),
        },
        ...data.series.map((series, i) => ({
          label: series.label,
          stroke: colour('--chart-' + (i + 1)),
          fill: i === 0 ? colour('--chart-fill') : undefined,
          width: 2,
          value: (plot, value) => number(value),
        })),
      ],
    };
  }

  const charts = [...document.querySelectorAll('[data-chart]')].map((element) => ({ element, data: JSON.parse(element.dataset.chart) }));
  function draw(chart) {
    if (chart.plot) chart.plot.destroy();
    chart.element.classList.add('chart-drawn');
    const { data } = chart;
    chart.plot = new uPlot(options(chart.element, data), [data.dates.map(seconds), ...data.series.map((s) => s.values)], chart.element);
    chart.width = chart.element.clientWidth;
  }
  for (const chart of charts) {
    draw(chart);
    chart.element.closest('figure').querySelector('details.chart-table')?.removeAttribute('open');
    new ResizeObserver(() => {
      const width = chart.element.clientWidth;
      if (width === chart.width || width === 0) return;
      chart.width = width;
      chart.plot.setSize({ width, height: heightFor(width) });
    }).observe(chart.element);
  }
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => charts.forEach(draw));
})();
