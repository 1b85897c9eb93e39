// Streams: every stream's positions and flush state, with the publish rate and the backlog as live charts.

import {get} from './api.js';
import {badge, card, clear, el, failure, streamLink, table} from './dom.js';
import {Series, sparkline} from './chart.js';

const REFRESH_MS = 2000;
const rates = new Series(60);
const backlogs = new Series(60);
const lastHeads = new Map();

export async function streamsPage(page) {
  page.root.appendChild(el('div', {class: 'page-head'}, el('h1', {}, 'Streams'),
      el('p', {class: 'muted'}, 'Live: refreshed every 2 s. Rate is events per second accepted into the log; lag is'
          + ' pending events not yet in the warehouse.')));
  const summary = el('div', {class: 'cards'});
  const list = el('div', {});
  page.root.append(summary, list);

  const refresh = async () => {
    let body;
    try {
      body = await get('/streams');
    } catch (error) {
      clear(list).appendChild(failure(error));
      return;
    }
    sample(body.streams);
    render(body, summary, list);
  };
  await refresh();
  page.every(REFRESH_MS, refresh);
}

function sample(streams) {
  const now = performance.now();
  for (const stream of streams) {
    const last = lastHeads.get(stream.name);
    if (last) {
      const seconds = Math.max(0.001, (now - last.at) / 1000);
      rates.push(stream.name, Math.max(0, Math.round(10 * (stream.head - last.head) / seconds) / 10));
    } else {
      rates.push(stream.name, 0);
    }
    lastHeads.set(stream.name, {head: stream.head, at: now});
    backlogs.push(stream.name, stream.pending);
  }
}

function render(body, summary, list) {
  const streams = body.streams;
  const pending = streams.reduce((sum, s) => sum + s.pending, 0);
  const failing = streams.filter((s) => s.flush_state === 'failing').length;
  const quarantined = streams.reduce((sum, s) => sum + (s.quarantined || 0), 0);
  clear(summary).append(
      card('streams', String(body.total)),
      card('pending', String(pending), 'events not yet in the warehouse'),
      card('quarantined', String(quarantined)),
      card('flush failing', String(failing), failing ? 'see the stream for the error' : 'all flushes healthy'));
  if (!streams.length) {
    clear(list).appendChild(el('p', {class: 'empty'}, 'No streams: declare one with @Stream and restart.'));
    return;
  }
  const rows = streams.map((stream) => ({
    attributes: {'data-stream': stream.name},
    cells: [
      el('span', {class: 'name-cell'}, streamLink(stream.name), stream.declared ? null : badge('undeclared', 'warn')),
      stream.on_schema_drift || '—',
      el('span', {'data-field': 'head'}, String(stream.head)),
      el('span', {'data-field': 'watermark'}, String(stream.watermark)),
      el('span', {'data-field': 'pending'}, String(stream.pending)),
      el('span', {'data-field': 'quarantined'}, String(stream.quarantined ?? 0)),
      el('span', {'data-field': 'flush_state', title: stream.flush_error || ''}, badge(stream.flush_state)),
      chartCell(rates.get(stream.name), 'events/s', 'publish rate of ' + stream.name, '#2f7de1'),
      chartCell(backlogs.get(stream.name), 'pending', 'lag of ' + stream.name, '#d9822b'),
    ],
  }));
  clear(list).appendChild(table(['stream', 'drift', '#head', '#watermark', '#pending', '#quarantined', 'flush',
    'rate', 'lag'], rows));
}

function chartCell(samples, unit, label, color) {
  const latest = samples.length ? samples[samples.length - 1] : 0;
  return el('div', {class: 'chart-cell'}, sparkline(samples, {label, color, fill: color + '22'}),
      el('span', {class: 'chart-value'}, latest + ' ' + unit));
}
