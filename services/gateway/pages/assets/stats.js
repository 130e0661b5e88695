'use strict';
(function statsPage() {
  const api = window.vopApi;
  const select = document.getElementById('period');

  async function load() {
    try {
      const stats = await api.getJson(`/admin/stats?period=${encodeURIComponent(select.value)}`);
      api.setText('total', stats.requests.total);
      api.setText('successful', stats.requests.successful);
      api.setText('failed', stats.requests.failed);
      api.setText('average', stats.requests.averageResponseTime);
      api.setText('uptime', stats.uptime);
      api.setText('version', stats.version);
      api.setText('error', '');
      document.body.dataset.loaded = select.value;
    } catch (error) {
      api.setText('error', error.message);
    }
  }
  select.addEventListener('change', load);
  load();
})();
