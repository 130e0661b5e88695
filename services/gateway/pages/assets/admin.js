'use strict';
(function dashboard() {
  const api = window.vopApi;
  const OUTCOMES = ['MTCH', 'CMTC', 'NMTC', 'NOAP', 'FAILED', 'PENDING'];
  const COLOURS = {
    MTCH: '#2da44e',
    CMTC: '#d4a72c',
    NMTC: '#cf222e',
    NOAP: '#8c959f',
    FAILED: '#6e7781',
    PENDING: '#54aeff',
  };
  const REFRESH_MS = 10000;
  const usageCanvas = document.getElementById('usage-chart');
  const outcomesCanvas = document.getElementById('outcomes-chart');
  const usageChart = new window.Chart(usageCanvas, {
    type: 'bar',
    data: { labels: [], datasets: [] },
    options: {
      animation: false,
      responsive: false,
      scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true } },
    },
  });
  const outcomesChart = new window.Chart(outcomesCanvas, {
    type: 'doughnut',
    data: { labels: OUTCOMES.slice(0, 4), datasets: [{ data: [0, 0, 0, 0] }] },
    options: { animation: false, responsive: false },
  });

  function hourLabel(iso) {
    return iso.slice(11, 16);
  }

  function showUsage(usage) {
    const periods = usage.series.map((bucket) => bucket.period);
    usageChart.data.labels = periods.map(hourLabel);
    usageChart.data.datasets = OUTCOMES.map((outcome) => ({
      label: outcome,
      backgroundColor: COLOURS[outcome],
      data: usage.series.map((bucket) =>
        bucket.counts
          .filter((count) => count.outcome === outcome)
          .reduce((sum, count) => sum + count.count, 0),
      ),
    })).filter((dataset) => dataset.data.some((count) => count > 0));
    usageChart.update();
    usageCanvas.dataset.total = String(usage.totals.total);
  }

  function showMatchRates(rates) {
    const counts = OUTCOMES.slice(0, 4).map((outcome) => rates.totals.counts[outcome]);
    outcomesChart.data.datasets = [
      { data: counts, backgroundColor: OUTCOMES.slice(0, 4).map((o) => COLOURS[o]) },
    ];
    outcomesChart.data.labels = OUTCOMES.slice(0, 4).map(
      (outcome) => `${outcome} ${Math.round(rates.totals.shares[outcome] * 100)} %`,
    );
    outcomesChart.update();
    outcomesCanvas.dataset.total = String(rates.totals.total);
  }

  function showRecent(recent) {
    const body = document.getElementById('recent');
    body.replaceChildren(
      ...recent.verifications.map((verification) => {
        const row = document.createElement('tr');
        for (const text of [
          verification.timestamp.replace('T', ' ').slice(0, 19),
          verification.name ?? '(expired)',
          verification.iban ?? '',
          verification.result,
        ]) {
          const cell = document.createElement('td');
          cell.textContent = text;
          row.append(cell);
        }
        return row;
      }),
    );
  }

  async function refresh() {
    try {
      const [stats, usage, rates, recent] = await Promise.all([
        api.getJson('/admin/stats?period=today'),
        api.getJson('/analytics/usage?granularity=hour'),
        api.getJson('/analytics/match-rates?granularity=day'),
        api.getJson('/admin/verifications?limit=10'),
      ]);
      api.setText('total', stats.requests.total);
      api.setText('successful', stats.requests.successful);
      api.setText('failed', stats.requests.failed);
      api.setText('average', stats.requests.averageResponseTime);
      api.setText('uptime', stats.uptime);
      api.setText('version', stats.version);
      showUsage(usage);
      showMatchRates(rates);
      showRecent(recent);
      api.setText('error', '');
      api.setText('updated-at', `updated ${new Date().toLocaleTimeString()}`);
      document.body.dataset.refreshes = String(Number(document.body.dataset.refreshes || 0) + 1);
    } catch (error) {
      api.setText('error', error.message);
    }
  }

  document.getElementById('refresh').addEventListener('click', refresh);
  setInterval(refresh, REFRESH_MS);
  refresh();
})();
