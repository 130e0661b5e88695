'use strict';
(function statsPage() {
  const api = window.vopApi;
  const select = document.getElementById('period');
  const canvas = document.getElementById('stats-chart');
  const chart = new window.Chart(canvas, {
    type: 'bar',
    data: {
      labels: ['Successful', 'Failed'],
      datasets: [{ label: 'Requests', data: [0, 0], backgroundColor: ['#2da44e', '#cf222e'] }],
    },
    options: {
      animation: false,
      responsive: false,
      plugins: { legend: { display: false } },
      scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
    },
  });

  function showChart(requests) {
    chart.data.datasets[0].data = [requests.successful, requests.failed];
    chart.update();
    canvas.dataset.total = String(requests.successful + requests.failed);
  }

  async function load() {
    try {
      const stats = await api.getJson(`/admin/stats?period=${encodeURIComponent(select.value)}`);
      api.setText('total', stats.requests.total);
      api.setText('successful', stats.requests.successful);
      api.setText('failed', stats.requests.failed);
      api.setText('average', stats.requests.averageResponseTime);
      api.setText('uptime', stats.uptime);
      api.setText('version', stats.version);
      showChart(stats.requests);
      api.setText('error', '');
      document.body.dataset.loaded = select.value;
    } catch (error) {
      api.setText('error', error.message);
    }
  }
  select.addEventListener('change', load);
  load();
})();
