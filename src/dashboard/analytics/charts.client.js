/**
 * The analytics pages' charts, served as charts.js after uPlot (uplot.js).
 * Each element with data-chart (JSON: granularity, dates, labels, series) becomes a line chart:
 * times in UTC as the reports count them, whole numbers on the y axis, colours from the
 * stylesheet's variables (so light and dark schemes both read, and a change of scheme redraws),
 * resized with its container. Once drawn, the chart's data table (open for pages without
 * scripts) folds away.
 *
 * A bucket's numbers show in a tooltip where the pointer is, and by keyboard: the chart takes the
 * focus, the arrow keys move from bucket to bucket (Home and End to the first and last, Escape
 * hides), and the tooltip is a polite live region, so a screen reader reads each bucket out. The
 * tooltip is placed through CSSOM properties, which the CSP allows (it refuses style attributes).
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

  function options(element, data, onCursor) {
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
      hooks: { setCursor: [(plot) => onCursor(plot.cursor.idx)] },
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

  /** The tooltip of a chart: its bucket's label, then each series' value, as text nodes. */
  function showBucket(chart, idx) {
    const { element, data, plot, tooltip } = chart;
    if (idx == null || idx < 0 || idx >= data.dates.length) {
      tooltip.hidden = true;
      return;
    }
    const heading = document.createElement('strong');
    heading.textContent = data.labels[idx];
    const rows = data.series.map((series, i) => {
      const row = document.createElement('span');
      row.className = 'chart-tooltip-row chart-tooltip-' + (i + 1);
      row.textContent = series.label + ': ' + number(series.values[idx]);
      return row;
    });
    tooltip.replaceChildren(heading, ...rows);
    tooltip.hidden = false;
    // Beside the bucket, on its right unless that would leave the chart, at the plot's top.
    const x = plot.over.offsetLeft + plot.valToPos(seconds(data.dates[idx]), 'x');
    const width = tooltip.offsetWidth;
    const right = x + 12;
    const left = right + width <= element.clientWidth ? right : Math.max(0, x - 12 - width);
    tooltip.style.left = left + 'px';
    tooltip.style.top = plot.over.offsetTop + 8 + 'px';
  }

  /** Moves the chart's cursor to bucket `idx` as a pointer would (its crosshair and points); the cursor hook shows it. */
  function selectBucket(chart, idx) {
    const { data, plot } = chart;
    const first = data.series[0].values;
    plot.setCursor({ left: plot.valToPos(seconds(data.dates[idx]), 'x'), top: plot.valToPos(first[idx], 'y') });
  }

  const KEYS = {
    ArrowRight: (idx, last) => Math.min(last, idx + 1),
    ArrowDown: (idx, last) => Math.min(last, idx + 1),
    ArrowLeft: (idx) => Math.max(0, idx - 1),
    ArrowUp: (idx) => Math.max(0, idx - 1),
    Home: () => 0,
    End: (idx, last) => last,
  };

  /** Makes a chart readable by keyboard: focusable, named, arrow keys from bucket to bucket. */
  function interactive(chart) {
    const { element, data } = chart;
    const title = element.closest('figure').querySelector('figcaption').textContent;
    element.removeAttribute('aria-hidden');
    element.tabIndex = 0;
    element.setAttribute('role', 'group');
    element.setAttribute('aria-label', title + ': use the arrow keys to read each point');
    chart.tooltip = document.createElement('div');
    chart.tooltip.className = 'chart-tooltip';
    chart.tooltip.setAttribute('role', 'status');
    chart.tooltip.hidden = true;
    element.append(chart.tooltip);
    element.addEventListener('focus', () => selectBucket(chart, chart.idx ?? 0));
    element.addEventListener('blur', () => {
      chart.tooltip.hidden = true;
    });
    element.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        chart.tooltip.hidden = true;
        return;
      }
      const move = KEYS[event.key];
      if (!move || data.dates.length === 0) return;
      event.preventDefault();
      selectBucket(chart, move(chart.idx ?? 0, data.dates.length - 1));
    });
  }

  const charts = [...document.querySelectorAll('[data-chart]')].map((element) => ({ element, data: JSON.parse(element.dataset.chart) }));
  function draw(chart) {
    chart.plot?.destroy();
    chart.plot = undefined;
    chart.element.classList.add('chart-drawn');
    const { data } = chart;
    const onCursor = (idx) => {
      // The pointer leaving the plot (idx null) keeps the keyboard's bucket while the chart has the focus.
      if (idx == null && document.activeElement === chart.element) return;
      if (idx != null) chart.idx = idx;
      if (chart.plot) showBucket(chart, idx);
    };
    chart.plot = new uPlot(
      options(chart.element, data, onCursor),
      [data.dates.map(seconds), ...data.series.map((s) => s.values)],
      chart.element,
    );
    chart.plot.root.setAttribute('aria-hidden', 'true');
    chart.width = chart.element.clientWidth;
  }
  for (const chart of charts) {
    interactive(chart);
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
