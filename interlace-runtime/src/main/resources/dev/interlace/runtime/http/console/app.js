// The console's shell: a hash router over the pages, the API key panel, and one timer per page for live data.

import {apiKey, onKeyRefused, setApiKey} from './api.js';
import {clear, el} from './dom.js';
import {streamsPage} from './page-streams.js';
import {streamPage} from './page-stream.js';
import {modelsPage} from './page-models.js';
import {findPage} from './page-find.js';
import {sqlPage} from './page-sql.js';
import {logsPage} from './page-logs.js';

const pages = {
  streams: streamsPage,
  stream: streamPage,
  models: modelsPage,
  find: findPage,
  sql: sqlPage,
  logs: logsPage,
};

const main = document.getElementById('main');
const keyPanel = document.getElementById('key-panel');
const keyReason = document.getElementById('key-reason');
const keyInput = document.getElementById('key-input');
let current = null;

/** The page's context: where to render, its parameters, and timers that stop when the page changes. */
class PageContext {
  constructor(root, parts, params) {
    this.root = root;
    this.parts = parts;
    this.params = params;
    this.timers = [];
    this.active = true;
  }

  every(millis, task) {
    const run = async () => {
      if (!this.active || document.hidden) return;
      try {
        await task();
      } catch (error) {
        // a live refresh that fails leaves the last answer on screen; the next one tries again
      }
    };
    this.timers.push(setInterval(run, millis));
  }

  stop() {
    this.active = false;
    this.timers.forEach(clearInterval);
  }
}

function route() {
  const hash = location.hash.replace(/^#\/?/, '') || 'streams';
  const [path, search] = hash.split('?');
  const parts = path.split('/').map(decodeURIComponent);
  const page = pages[parts[0]] ? parts[0] : 'streams';
  if (current) current.stop();
  clear(main);
  const root = el('div', {class: 'page', 'data-page': page});
  main.appendChild(root);
  current = new PageContext(root, parts.slice(1), new URLSearchParams(search || ''));
  for (const link of document.querySelectorAll('#nav a')) {
    link.classList.toggle('active', link.dataset.page === page || (page === 'stream' && link.dataset.page === 'streams'));
  }
  document.title = titles[page] + ' · Interlace';
  Promise.resolve(pages[page](current)).catch((error) => {
    root.appendChild(el('div', {class: 'error-box', role: 'alert'}, String(error && error.message || error)));
  });
}

const titles = {
  streams: 'Streams', stream: 'Stream', models: 'Models', find: 'Where is my event', sql: 'SQL', logs: 'Logs',
};

function showKeyPanel(reason) {
  keyReason.textContent = reason;
  keyPanel.hidden = false;
  keyInput.focus();
}

onKeyRefused((status, message) => {
  if (status === 401) {
    showKeyPanel(apiKey()
      ? 'The server refused this key: ' + message
      : 'This server needs an API key for its API (the console itself is open). ' + message);
  } else {
    showKeyPanel('This key may not do that: ' + message + '. Use a key with that scope.');
  }
  updateKeyButton();
});

function updateKeyButton() {
  const button = document.getElementById('key-button');
  button.textContent = apiKey() ? 'API key ✓' : 'API key';
  button.title = apiKey() ? 'A key is set for this tab' : 'No key set (the server may be open)';
}

document.getElementById('key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  setApiKey(keyInput.value.trim());
  keyInput.value = '';
  keyPanel.hidden = true;
  updateKeyButton();
  route();
});
document.getElementById('key-forget').addEventListener('click', () => {
  setApiKey('');
  keyInput.value = '';
  updateKeyButton();
  keyReason.textContent = 'The key was forgotten; this tab sends none now.';
});
document.getElementById('key-close').addEventListener('click', () => {
  keyPanel.hidden = true;
});
document.getElementById('key-button').addEventListener('click', () => {
  if (keyPanel.hidden) {
    showKeyPanel(apiKey() ? 'A key is set for this tab. Enter another to replace it.' : 'Enter an API key.');
  } else {
    keyPanel.hidden = true;
  }
});

window.addEventListener('hashchange', route);
updateKeyButton();
route();
