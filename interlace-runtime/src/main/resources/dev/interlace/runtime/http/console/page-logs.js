// The logs: API requests (acknowledged publishes from the store, refusals from the in-memory ring) and system
// records, with their filters, and honest counts: how many shown, how many match, and where they came from.

import {get, query} from './api.js';
import {badge, clear, completeness, el, failure, field, requestLink, streamLink, table, time} from './dom.js';

const KINDS = {
  api: {path: '/logs/api', filters: ['stream', 'status', 'request_id', 'since', 'until', 'limit'], items: 'requests'},
  sys: {path: '/logs/sys', filters: ['event', 'stream', 'id', 'since', 'until', 'limit'], items: 'records'},
};

export async function logsPage(page) {
  const kind = page.parts[0] === 'sys' ? 'sys' : 'api';
  const spec = KINDS[kind];
  const tabs = el('div', {class: 'tabs'},
      el('a', {href: '#/logs/api', class: kind === 'api' ? 'active' : null}, 'API requests'),
      el('a', {href: '#/logs/sys', class: kind === 'sys' ? 'active' : null}, 'System records'));
  const inputs = spec.filters.map((name) => el('input', {name, placeholder: name === 'since' || name === 'until'
    ? '2026-12-01T08:00:00Z' : '', 'aria-label': name, value: page.params.get(name) || (name === 'limit' ? '100' : ''),
  type: name === 'limit' ? 'number' : 'text'}));
  const form = el('form', {class: 'filters'}, inputs.map((input) => field(input.name.replace('_', ' '), input)),
      el('button', {type: 'submit'}, 'Filter'));
  const result = el('div', {});
  page.root.append(el('div', {class: 'page-head'}, el('h1', {}, 'Logs')), tabs, el('div', {class: 'panel'}, form),
      result);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const values = {};
    inputs.forEach((input) => {
      values[input.name] = input.value;
    });
    location.hash = '#/logs/' + kind + query(values);
  });

  const parameters = {};
  spec.filters.forEach((name) => {
    parameters[name] = page.params.get(name) || (name === 'limit' ? '100' : '');
  });
  try {
    const body = await get(spec.path + query(parameters));
    clear(result).append(el('div', {class: 'panel'}, completeness(body),
        body.record_retention ? el('p', {class: 'muted'}, 'Records are kept for ' + body.record_retention + '.') : null,
        kind === 'api' ? apiTable(body.requests) : sysTable(body.records)));
  } catch (error) {
    clear(result).append(failure(error));
  }
}

function apiTable(requests) {
  if (!requests.length) return el('p', {class: 'empty'}, 'No requests match.');
  return table(['received', 'request', 'method', 'path', 'stream', 'status', 'outcome', 'key', 'source'],
      requests.map((r) => ({attributes: {'data-request': r.request_id},
        cells: [time(r.received_at), requestLink(r.request_id), r.method, el('span', {class: 'mono'}, r.path),
          r.stream ? streamLink(r.stream) : '—', badge(String(r.status), r.status < 400 ? 'ok' : 'failed'),
          r.error ? el('span', {}, el('strong', {}, r.error), ' ', r.message || '')
            : (r.accepted ?? 0) + ' accepted, ' + (r.deduplicated ?? 0) + ' dedup, ' + (r.quarantined ?? 0) + ' quarantined',
          r.key ? r.key.name : '—', r.source]})));
}

function sysTable(records) {
  if (!records.length) return el('p', {class: 'empty'}, 'No records match.');
  return table(['#seq', 'at', 'event', 'stream', 'id', 'message'], records.map((r) => ({attributes: {'data-seq': String(r.seq)},
    cells: [String(r.seq), time(r.at), badge(r.event, 'plain'), r.stream ? streamLink(r.stream) : '—',
      el('span', {class: 'mono'}, r.id || '—'), r.message]})));
}
