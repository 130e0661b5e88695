'use strict';
/* Shared by the pages: JSON calls to the service's own API over the same mutual-TLS connection. */
window.vopApi = {
  async getJson(path) {
    const response = await fetch(path, { headers: { Accept: 'application/json' } });
    const body = await response.json();
    if (!response.ok) throw new Error(describeError(response.status, body));
    return body;
  },
  /** The body and the headers (e.g. X-Verification-ID) of a JSON POST. */
  postJsonAnswer,
  setText(id, value) {
    const element = document.getElementById(id);
    if (element) element.textContent = String(value);
  },
};

function describeError(status, body) {
  const error = body && body.error;
  if (typeof error === 'string') return `${status} ${error}: ${body.message || ''}`;
  if (error && typeof error === 'object') return `${status} ${error.code}: ${error.message || ''}`;
  return `HTTP ${status}`;
}

async function postJsonAnswer(path, payload) {
  const response = await fetch(path, {
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    body: JSON.stringify(payload),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(describeError(response.status, body));
  return { body, headers: response.headers };
}
