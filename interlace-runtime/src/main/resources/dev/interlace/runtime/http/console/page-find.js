// "Where is my event": a request id, or a stream and an idempotency key, to the story of its events as a timeline:
// publish → (quarantine) → flushes into the warehouse → model runs.

import {call, get, query} from './api.js';
import {badge, clear, el, failure, json, requestLink, streamLink, time} from './dom.js';

export async function findPage(page) {
  const requestInput = el('input', {name: 'request_id', placeholder: 'request id', 'aria-label': 'request id',
    class: 'mono wide'});
  const streamInput = el('select', {name: 'stream', 'aria-label': 'stream'}, el('option', {value: ''}, 'stream…'));
  const keyInput = el('input', {name: 'key', placeholder: 'idempotency key', 'aria-label': 'idempotency key'});
  const result = el('div', {class: 'timeline-wrap'});
  const byRequest = el('form', {class: 'filters'}, requestInput, el('button', {type: 'submit'}, 'Find by request'));
  const byKey = el('form', {class: 'filters'}, streamInput, keyInput, el('button', {type: 'submit'}, 'Find by key'));
  page.root.append(el('div', {class: 'page-head'}, el('h1', {}, 'Where is my event'),
      el('p', {class: 'muted'}, 'The request that published it, the flushes that put it in the warehouse, and the model'
          + ' runs they triggered.')), el('div', {class: 'panel'}, byRequest, el('p', {class: 'or'}, 'or'), byKey),
  result);

  const lookup = async (parameters) => {
    clear(result).append(el('p', {class: 'muted'}, 'Looking…'));
    let body;
    try {
      body = await get('/correlate' + query(parameters));
      clear(result).append(timeline(body));
    } catch (error) {
      clear(result).append(failure(error));
      return;
    }
    // Events still pending: ask again with the request's position (as its publish answered it: every partition its
    // events fell in), which the server answers once they are materialised and the model runs they trigger have run
    // (read-your-writes), so the timeline completes without a reload.
    if (!body.events || !body.events.pending || !body.position) return;
    const waiting = el('p', {class: 'muted', 'data-waiting': ''}, 'Waiting for the warehouse…');
    result.append(waiting);
    try {
      const later = await call('/correlate' + query(parameters),
          {headers: {'Interlace-After': body.position + ', models'}});
      clear(result).append(timeline(later.body));
    } catch (error) {
      waiting.textContent = 'Still pending: ' + error.message;
    }
  };
  byRequest.addEventListener('submit', (event) => {
    event.preventDefault();
    location.hash = '#/find' + query({request_id: requestInput.value});
  });
  byKey.addEventListener('submit', (event) => {
    event.preventDefault();
    location.hash = '#/find' + query({stream: streamInput.value, key: keyInput.value});
  });

  get('/streams').then((body) => body.streams.forEach((s) => streamInput.append(el('option', {value: s.name}, s.name))))
      .then(() => {
        streamInput.value = page.params.get('stream') || '';
      }).catch(() => {});
  requestInput.value = page.params.get('request_id') || '';
  keyInput.value = page.params.get('key') || '';
  if (page.params.get('request_id')) {
    await lookup({request_id: page.params.get('request_id')});
  } else if (page.params.get('stream') && page.params.get('key')) {
    await lookup({stream: page.params.get('stream'), key: page.params.get('key')});
  } else if (page.params.get('trace_id')) {
    await lookup({trace_id: page.params.get('trace_id')});
  }
}

function step(kind, title, when, ...details) {
  return el('li', {class: 'step ' + kind, 'data-step': kind}, el('div', {class: 'dot'}),
      el('div', {class: 'step-body'}, el('div', {class: 'step-title'}, title, when ? el('span', {class: 'when'}, ' ',
          time(when)) : null), ...details));
}

function timeline(body) {
  const steps = [];
  const publish = body.publish;
  if (publish) {
    steps.push(step('publish', ['Published to ', streamLink(publish.stream), ' ', badge(String(publish.status), 'ok')],
        publish.received_at,
        el('p', {}, publish.accepted + ' accepted · ' + publish.deduplicated + ' deduplicated · ' + publish.quarantined
            + ' quarantined', publish.first_offset !== null && publish.first_offset !== undefined
          ? ' · offsets ' + publish.first_offset + '–' + publish.last_offset : ''),
        el('p', {class: 'muted'}, 'committed (fsynced) ', time(publish.committed_at), ' · ', publish.duration_ms + ' ms',
            publish.key ? ' · key ' + publish.key.name + ' (' + publish.key.id + ')' : '')));
  }
  if (body.refused) {
    steps.push(step('refused', ['Refused ', badge(String(body.refused.status), 'failed'), ' ', body.refused.error],
        body.refused.received_at, el('p', {}, body.refused.message), el('p', {class: 'muted'},
            'Nothing from a refused request is stored; this comes from the in-memory ring of refused requests.')));
  }
  if (body.deduplicated && body.deduplicated.count) {
    steps.push(step('dedup', body.deduplicated.count + ' deduplicated', null,
        el('ul', {}, (body.deduplicated.first_written_by || []).map((w) => el('li', {}, 'first written by ',
            requestLink(w.request_id), w.offset !== undefined ? ' at offset ' + w.offset : '')))));
  }
  for (const item of (body.replayed_from && body.replayed_from.items) || []) {
    steps.push(step('replay', ['Replayed from quarantine entry ', String(item.seq), ' of ',
      streamLink(item.stream || (publish && publish.stream) || '')], item.received_at,
    el('p', {}, 'first sent by request ', requestLink(item.request_id), ' · now offset ',
        String(item.replayed_offset ?? '—'))));
  }
  for (const item of (body.quarantine && body.quarantine.items) || []) {
    const replayed = item.replayed_offset !== null && item.replayed_offset !== undefined;
    steps.push(step('quarantine', ['Quarantined as entry ', String(item.seq)], item.ingested_at || item.received_at,
        json(item.event), el('ul', {class: 'errors'}, (item.errors || []).map((e) => el('li', {},
            el('span', {class: 'mono'}, e.field), ': ', e.reason))),
        replayed ? el('p', {}, badge('replayed', 'ok'), ' to offset ' + item.replayed_offset,
            item.replayed_by ? el('span', {}, ' by request ', requestLink(item.replayed_by)) : null,
            item.replayed_at ? el('span', {class: 'muted'}, ' at ', time(item.replayed_at)) : null)
          : el('p', {class: 'muted'}, 'not replayed')));
  }
  if (body.events) {
    const events = body.events;
    const offsets = (part) => part.first_offset === null || part.first_offset === undefined ? 'no new offsets'
      : 'offsets ' + part.first_offset + '–' + part.last_offset;
    steps.push(step(events.pending ? 'waiting' : 'stored', events.count + (events.count === 1 ? ' event' : ' events')
        + ' in the log', null, el('p', {}, (events.partitions ? events.partitions.length + ' partitions'
          : offsets(events)) + ' · ' + events.materialised + ' materialised · ' + events.pending + ' pending'),
    events.partitions ? el('ul', {'data-partitions': ''}, events.partitions.map((part) => el('li',
        {'data-partition': String(part.partition)}, 'partition ' + part.partition + ': ' + offsets(part) + ' · '
          + part.materialised + ' materialised · ' + part.pending + ' pending'))) : null));
  }
  for (const flush of (body.flushes && body.flushes.items) || []) {
    steps.push(step(flush.error ? 'failed' : 'flush', [flush.error ? 'Flush failed ' : 'Flushed into the warehouse ',
      el('span', {class: 'muted mono'}, flush.flush_id)], flush.committed_at || flush.started_at,
    el('p', {}, flush.rows + ' rows · offsets ' + flush.first_offset + '–' + flush.last_offset + ' · ' + flush.target
        + ' · ' + flush.duration_ms + ' ms'), traces(flush), flush.error ? el('p', {class: 'error-text'}, flush.error)
        : null));
  }
  for (const run of (body.runs && body.runs.items) || []) {
    steps.push(step(run.status === 'failed' ? 'failed' : 'run', ['Model run ', el('a', {href: '#/models',
      class: 'mono'}, run.run_id), ' ', badge(run.status)], run.queued_at, el('p', {class: 'muted'}, 'trigger ',
        run.trigger), traces(run)));
  }
  if (!steps.length) steps.push(step('none', 'Nothing found', null));
  const totals = body.totals || {};
  return el('div', {class: 'panel'}, el('h2', {}, 'Request ', el('span', {class: 'mono'}, body.request_id || '')),
      el('p', {class: 'counts'}, 'flushes ' + (totals.flushes ?? 0) + ' · runs ' + (totals.runs ?? 0) + ' · quarantine '
          + (totals.quarantine ?? 0) + (totals.replayed_from ? ' · replayed from ' + totals.replayed_from : '')
          + ' · completeness: ' + body.completeness),
      el('ol', {class: 'timeline', 'data-timeline': ''}, steps));
}

/** The trace ids a flush or run kept (at most 16) and how many there were, each a link to its correlation. */
function traces(record) {
  if (!record.trace_count) return null;
  const more = record.trace_count - (record.trace_ids || []).length;
  return el('p', {class: 'muted', 'data-traces': ''}, 'traces ', ...(record.trace_ids || []).flatMap((id, i) => [
    i ? ', ' : '', el('a', {href: '#/find?trace_id=' + id, class: 'mono'}, id)]), more > 0 ? ' and ' + more + ' more' : '');
}
