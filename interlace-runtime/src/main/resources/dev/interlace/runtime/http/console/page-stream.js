// One stream: positions, schema (evolved columns marked), recent events, a publish form, the quarantine with
// replay (a dry run first), and the consumer groups with their lag and lease holders.

import {call, get, postJson, query} from './api.js';
import {badge, card, clear, completeness, el, failure, json, requestLink, section, table, time} from './dom.js';

export async function streamPage(page) {
  const name = page.parts[0] || '';
  const path = '/streams/' + encodeURIComponent(name);
  const head = el('div', {class: 'page-head'},
      el('p', {class: 'crumbs'}, el('a', {href: '#/streams'}, 'Streams'), ' / '),
      el('h1', {class: 'stream-name'}, name));
  const summary = el('div', {class: 'cards'});
  const schema = section('Schema');
  const recent = section('Recent events');
  const publish = section('Publish');
  const quarantine = section('Quarantine');
  const consumers = section('Consumers');
  const columns = el('div', {class: 'columns'}, el('div', {}, schema, publish), el('div', {}, consumers));
  page.root.append(head, summary, columns, quarantine, recent);

  let stream;
  try {
    stream = await get(path);
  } catch (error) {
    page.root.appendChild(failure(error));
    return;
  }
  renderSummary(summary, stream);
  renderSchema(schema, stream);
  renderRecent(recent, stream);
  const reload = async () => {
    const again = await get(path);
    renderSummary(summary, again);
    renderRecent(recent, again);
    renderSchema(schema, again);
  };
  renderPublish(publish, path, stream, async () => {
    await reload();
    if (quarantine.isConnected) await loadQuarantine(quarantine, path, reload);
  });
  if (stream.on_schema_drift === 'quarantine' || stream.quarantined > 0) {
    await loadQuarantine(quarantine, path, reload);
  } else {
    quarantine.remove();
  }
  await loadConsumers(consumers, path, stream.partitions || 1);
  page.every(3000, async () => {
    const again = await get(path);
    renderSummary(summary, again);
  });
}

function renderSummary(target, stream) {
  clear(target).append(
      card('head', String(stream.head)),
      card('watermark', String(stream.watermark)),
      card('pending', String(stream.pending)),
      card('quarantined', String(stream.quarantined ?? 0)),
      card('flush', badge(stream.flush_state), stream.flush_error || (stream.flush_failing_since
        ? 'failing since ' + stream.flush_failing_since : null)),
      card('drift', stream.on_schema_drift || '—', stream.declared ? null : 'no longer declared'),
      card('retention', stream.retention || 'forever'),
      card('idempotency key', stream.idempotency_key || 'none'));
}

function renderSchema(target, stream) {
  const evolved = new Set(stream.evolved_columns || []);
  const rows = Object.entries(stream.schema || {}).map(([column, type]) => ({
    attributes: {'data-column': column},
    cells: [el('span', {class: 'mono'}, column), el('span', {class: 'mono'}, type),
      evolved.has(column) ? badge('evolved', 'info') : (column === stream.idempotency_key ? badge('key', 'plain') : '')],
  }));
  clear(target).append(el('h2', {}, 'Schema'), el('p', {class: 'muted'}, stream.table || '',
      stream.schema_version ? ' · version ' + stream.schema_version : ''),
  table(['column', 'type', ''], rows));
}

function renderRecent(target, stream) {
  const events = stream.recent || [];
  const rows = events.map((event) => ({
    attributes: {'data-offset': String(event.offset)},
    cells: [String(event.offset), time(event.ingested_at), requestLink(event.request_id), json(event.event)],
  }));
  clear(target).append(el('h2', {}, 'Recent events'),
      events.length ? table(['#offset', 'ingested', 'request', 'event (as sent)'], rows, {class: 'grid events'})
        : el('p', {class: 'empty'}, 'No events yet.'));
}

function renderPublish(target, path, stream, after) {
  const example = {};
  for (const [column] of Object.entries(stream.schema || {})) example[column] = null;
  const text = el('textarea', {rows: 5, spellcheck: 'false', 'aria-label': 'events to publish',
    placeholder: 'One JSON object, an array of objects, or NDJSON (one object per line)'});
  text.value = JSON.stringify(example);
  const result = el('div', {class: 'result'});
  const button = el('button', {type: 'submit'}, 'Publish');
  const form = el('form', {class: 'publish-form'}, text, el('div', {class: 'row'}, button,
      el('span', {class: 'muted'}, 'POST ' + path + '?verbose=true')), result);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = text.value.trim();
    const ndjson = !body.startsWith('[') && body.split('\n').filter((line) => line.trim()).length > 1;
    button.disabled = true;
    clear(result);
    try {
      const answer = (await call(path + '?verbose=true', {method: 'POST', body,
        contentType: ndjson ? 'application/x-ndjson' : 'application/json'})).body;
      result.append(el('p', {class: 'ok', 'data-publish-result': ''}, answer.accepted + ' accepted · ',
          answer.deduplicated + ' deduplicated · ', answer.quarantined + ' quarantined · ', answer.partitions
            ? 'last offsets ' + answer.partitions.map((p) => 'partition ' + p.partition + ': '
              + String(p.last_offset ?? '—')).join(', ') : 'last offset ' + String(answer.last_offset ?? '—'),
          ' · request ', requestLink(answer.request_id)));
      const problems = (answer.results || []).filter((r) => r.errors && r.errors.length);
      if (problems.length) result.append(errorsTable(problems.flatMap((r) => r.errors.map((e) => ({...e, index: r.index})))));
      await after();
    } catch (error) {
      result.append(failure(error));
      if (error.body && error.body.errors) result.append(errorsTable(error.body.errors));
    } finally {
      button.disabled = false;
    }
  });
  clear(target).append(el('h2', {}, 'Publish'), stream.declared === false
    ? el('p', {class: 'muted'}, 'This stream is no longer declared; publishing to it is refused.') : form);
}

function errorsTable(errors) {
  return table(['#event', 'field', 'reason'], errors.map((e) => [String(e.index ?? ''), el('span', {class: 'mono'}, e.field),
    e.reason]));
}

async function loadQuarantine(target, path, replayed = async () => {}) {
  const list = el('div', {});
  const results = el('div', {class: 'result', 'data-replay-results': ''});
  clear(target).append(el('h2', {}, 'Quarantine'), list, results);
  let body;
  try {
    body = await get(path + '/quarantine' + query({limit: 100}));
  } catch (error) {
    list.append(failure(error));
    return;
  }
  const items = body.items || [];
  if (!items.length) {
    list.append(completeness(body), el('p', {class: 'empty'}, 'Nothing quarantined.'));
    return;
  }
  const boxes = [];
  const rows = items.map((item) => {
    const box = el('input', {type: 'checkbox', 'aria-label': 'select entry ' + item.seq, value: String(item.seq)});
    if (item.replayed_offset !== null && item.replayed_offset !== undefined) box.disabled = true;
    boxes.push(box);
    return {
      attributes: {'data-seq': String(item.seq)},
      cells: [box, String(item.seq), time(item.received_at), requestLink(item.request_id), json(item.event),
        el('ul', {class: 'errors'}, (item.errors || []).map((e) => el('li', {}, el('span', {class: 'mono'}, e.field),
            ': ', e.reason))),
        item.replayed_offset !== null && item.replayed_offset !== undefined
          ? el('span', {'data-replayed': String(item.replayed_offset)}, badge('replayed', 'ok'), ' → ',
              item.replayed_partition ? 'partition ' + item.replayed_partition + ' · ' : '', 'offset ',
              String(item.replayed_offset), item.replayed_by ? el('span', {class: 'muted'}, ' by ',
                  requestLink(item.replayed_by)) : null)
          : badge('waiting', 'warn')],
    };
  });
  const selected = () => boxes.filter((b) => b.checked).map((b) => Number(b.value));
  const dryRun = el('button', {type: 'button', 'data-action': 'dry-run'}, 'Dry run');
  const replay = el('button', {type: 'button', class: 'primary', 'data-action': 'replay', disabled: true}, 'Replay');
  const scope = el('select', {'aria-label': 'which entries'}, el('option', {value: 'selected'}, 'selected entries'),
      el('option', {value: 'all'}, 'all entries'));
  let checked = null;
  const request = () => scope.value === 'all' ? {all: true} : {seqs: selected()};
  const signature = () => JSON.stringify(request());
  const onChange = () => {
    replay.disabled = checked !== signature();
  };
  boxes.forEach((b) => b.addEventListener('change', onChange));
  scope.addEventListener('change', onChange);
  dryRun.addEventListener('click', async () => {
    const what = request();
    if (what.seqs && !what.seqs.length) {
      clear(results).append(el('p', {class: 'muted'}, 'Select entries, or choose all entries.'));
      return;
    }
    clear(results);
    try {
      const answer = await postJson(path + '/quarantine/replay', {...what, dry_run: true});
      checked = JSON.stringify(what);
      showReplay(results, answer);
      onChange();
    } catch (error) {
      results.append(failure(error));
    }
  });
  replay.addEventListener('click', async () => {
    clear(results);
    replay.disabled = true;
    try {
      const answer = await postJson(path + '/quarantine/replay', {...request(), dry_run: false});
      await loadQuarantine(target, path, replayed);
      showReplay(target.querySelector('[data-replay-results]'), answer);
      await replayed();
    } catch (error) {
      results.append(failure(error));
    }
  });
  list.append(completeness(body),
      el('div', {class: 'row toolbar'}, 'Replay ', scope, dryRun, replay,
          el('span', {class: 'muted'}, 'A dry run re-validates against today\'s schema and changes nothing;'
              + ' replay then publishes the entries that pass.')),
      table(['', '#seq', 'received', 'request', 'event (as sent)', 'errors', 'state'], rows, {class: 'grid events'}));
}

function showReplay(target, answer) {
  clear(target).append(el('div', {},
      el('p', {class: answer.dry_run ? 'notice' : 'ok', 'data-replay-summary': answer.dry_run ? 'dry-run' : 'replay'},
          answer.dry_run ? 'Dry run: ' + answer.accepted + ' would be accepted' : 'Replayed: ' + answer.accepted
            + ' accepted', ' · ', answer.deduplicated + ' deduplicated · ', answer.invalid + ' still invalid',
          answer.already_replayed ? ' · ' + answer.already_replayed + ' replayed before' : '',
          answer.dry_run ? ' · nothing was written' : el('span', {}, ' · request ', requestLink(answer.request_id))),
      answer.more ? el('p', {class: 'muted'}, 'More entries remain after ' + answer.next_after
          + '; replay all again to continue.') : null,
      table(['#seq', 'status', '#offset', 'errors'], (answer.results || []).map((r) => ({
        attributes: {'data-result-seq': String(r.seq)},
        cells: [String(r.seq), badge(r.status), (r.partition !== undefined && r.offset !== null
          ? 'partition ' + r.partition + ' · ' : '') + String(r.offset ?? '—'),
          el('ul', {class: 'errors'}, (r.errors || []).map((e) => el('li', {}, el('span', {class: 'mono'}, e.field), ': ',
              e.reason)))],
      })))));
}

async function loadConsumers(target, path, partitions) {
  clear(target).append(el('h2', {}, 'Consumers'));
  try {
    // A group has a position in each partition of a partitioned stream: one list per partition.
    const several = partitions > 1;
    const bodies = several
      ? await Promise.all([...Array(partitions).keys()].map((p) => get(path + '/consumers' + query({partition: p}))
          .then((body) => ({partition: p, body}))))
      : [{partition: null, body: await get(path + '/consumers')}];
    const rows = bodies.flatMap(({partition, body}) => (body.consumers || []).map((c) => ({
      attributes: {'data-group': c.group},
      cells: [el('span', {class: 'mono nowrap'}, c.group), ...(several ? [String(partition)] : []),
        String(c.committed_offset), String(c.lag),
        c.holder ? el('span', {}, c.holder, el('span', {class: 'muted'}, ' until ', time(c.expires_at))) : 'none',
        String(c.epoch ?? '—'), c.lapped ? badge('lapped', 'warn') : ''],
    })));
    target.append(completeness(bodies[0].body), rows.length
      ? table(['group', ...(several ? ['#partition'] : []), '#committed', '#lag', 'lease holder', '#epoch', ''], rows)
      : el('p', {class: 'empty'}, 'No consumer groups.'));
  } catch (error) {
    target.append(failure(error));
  }
}
