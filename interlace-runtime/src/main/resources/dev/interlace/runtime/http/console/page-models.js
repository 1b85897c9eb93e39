// Models: the DAG drawn (streams on the left, each model one column right of what it reads), the run history with
// its filters, and "run now".

import {call, get, query} from './api.js';
import {badge, clear, completeness, el, failure, field, section, svg, table, time} from './dom.js';

const NODE_WIDTH = 168;
const NODE_HEIGHT = 44;
const COLUMN_GAP = 72;
const ROW_GAP = 18;

export async function modelsPage(page) {
  const graph = el('div', {class: 'dag'});
  const actions = el('div', {class: 'row toolbar'});
  const filters = el('form', {class: 'filters'});
  const history = el('div', {});
  const detail = el('div', {});
  page.root.append(el('div', {class: 'page-head'}, el('h1', {}, 'Models'),
      el('p', {class: 'muted'}, 'Select a model in the graph to see its runs or run it now.')),
  section('Graph', graph, actions), section('Runs', filters, history, detail));

  let models;
  try {
    models = (await get('/models')).models;
  } catch (error) {
    graph.append(failure(error));
    return;
  }
  const state = {model: page.params.get('model') || '', status: '', trigger: '', since: '', until: '', limit: '50'};
  const select = (name) => {
    state.model = name;
    modelInput.value = name;
    drawGraph(graph, models, state.model, select);
    drawActions(actions, state.model, refreshRuns);
    refreshRuns();
  };

  const modelInput = el('select', {name: 'model', 'aria-label': 'model'}, el('option', {value: ''}, 'any model'),
      models.map((m) => el('option', {value: m.name}, m.name)));
  const statusInput = el('select', {name: 'status', 'aria-label': 'status'}, el('option', {value: ''}, 'any status'),
      ['queued', 'running', 'succeeded', 'failed'].map((s) => el('option', {value: s}, s)));
  const triggerInput = el('input', {name: 'trigger', placeholder: 'trigger, e.g. manual', 'aria-label': 'trigger'});
  const sinceInput = el('input', {name: 'since', placeholder: '2026-12-01T08:00:00Z', 'aria-label': 'since'});
  const limitInput = el('input', {name: 'limit', type: 'number', min: 1, max: 1000, value: state.limit,
    'aria-label': 'limit'});
  modelInput.value = state.model;
  filters.append(field('model', modelInput), field('status', statusInput), field('trigger', triggerInput),
      field('since', sinceInput), field('limit', limitInput), el('button', {type: 'submit'}, 'Filter'));
  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    state.status = statusInput.value;
    state.trigger = triggerInput.value;
    state.since = sinceInput.value;
    state.limit = limitInput.value;
    select(modelInput.value);
  });

  async function refreshRuns() {
    try {
      const body = await get('/runs' + query({model: state.model, status: state.status, trigger: state.trigger,
        since: state.since, limit: state.limit}));
      renderRuns(history, body, detail);
    } catch (error) {
      clear(history).append(failure(error));
    }
  }

  select(state.model);
  page.every(2000, refreshRuns);
}

/** Columns: streams first, then each model one right of the furthest thing it reads. */
function layout(models) {
  const column = new Map();
  const streams = new Set();
  models.forEach((m) => m.reads_streams.forEach((s) => streams.add(s)));
  streams.forEach((s) => column.set('stream:' + s, 0));
  for (const model of models) { // run order: inputs come first
    const inputs = [...model.reads_streams.map((s) => column.get('stream:' + s)),
      ...model.reads_models.map((m) => column.get('model:' + m))];
    column.set('model:' + model.name, 1 + Math.max(0, ...inputs.filter((c) => c !== undefined)));
  }
  const byColumn = [];
  for (const [id, c] of column) (byColumn[c] = byColumn[c] || []).push(id);
  const position = new Map();
  byColumn.forEach((ids, c) => ids.sort().forEach((id, row) => position.set(id, {
    x: 8 + c * (NODE_WIDTH + COLUMN_GAP), y: 8 + row * (NODE_HEIGHT + ROW_GAP)})));
  const rows = Math.max(1, ...byColumn.map((ids) => (ids ? ids.length : 0)));
  return {position, width: 16 + byColumn.length * NODE_WIDTH + (byColumn.length - 1) * COLUMN_GAP,
    height: 16 + rows * NODE_HEIGHT + (rows - 1) * ROW_GAP};
}

function drawGraph(target, models, selected, onSelect) {
  clear(target);
  if (!models.length) {
    target.append(el('p', {class: 'empty'}, 'No models: add SQL files under models/ or @Model classes.'));
    return;
  }
  const {position, width, height} = layout(models);
  const canvas = svg('svg', {viewBox: `0 0 ${width} ${height}`, width, height, role: 'img',
    'aria-label': 'model graph', class: 'dag-svg'});
  canvas.append(svg('defs', {}, svg('marker', {id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7,
    markerHeight: 7, orient: 'auto-start-reverse'}, svg('path', {d: 'M0,0 L10,5 L0,10 z', class: 'arrow'}))));
  const edge = (fromId, toId, from, to) => {
    const a = position.get(fromId);
    const b = position.get(toId);
    const x1 = a.x + NODE_WIDTH;
    const y1 = a.y + NODE_HEIGHT / 2;
    const x2 = b.x - 2;
    const y2 = b.y + NODE_HEIGHT / 2;
    const bend = Math.max(24, (x2 - x1) / 2);
    canvas.append(svg('path', {d: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`,
      class: 'edge', 'marker-end': 'url(#arrow)', 'data-edge': from + '->' + to}));
  };
  for (const model of models) {
    model.reads_streams.forEach((s) => edge('stream:' + s, 'model:' + model.name, 'streams.' + s, model.name));
    model.reads_models.forEach((m) => edge('model:' + m, 'model:' + model.name, m, model.name));
  }
  const node = (id, name, kind, subtitle, onClick) => {
    const {x, y} = position.get(id);
    const group = svg('g', {class: 'node ' + kind + (selected && id === 'model:' + selected ? ' selected' : ''),
      'data-node': name, 'data-kind': kind, transform: `translate(${x},${y})`, tabindex: onClick ? 0 : null,
      role: onClick ? 'button' : null},
    svg('title', {}, name), svg('rect', {width: NODE_WIDTH, height: NODE_HEIGHT, rx: 8}),
    svg('text', {x: 12, y: 19, class: 'node-name'}, fit(name)),
    svg('text', {x: 12, y: 35, class: 'node-kind'}, subtitle));
    if (onClick) {
      group.addEventListener('click', onClick);
      group.addEventListener('keydown', (event) => (event.key === 'Enter' || event.key === ' ') && onClick());
    }
    canvas.append(group);
  };
  for (const [id] of position) {
    if (id.startsWith('stream:')) {
      const name = id.slice('stream:'.length);
      node(id, 'streams.' + name, 'stream', 'stream', () => {
        location.hash = '#/stream/' + encodeURIComponent(name);
      });
    }
  }
  for (const model of models) {
    node('model:' + model.name, model.name, 'model', model.materialise + ' · ' + model.language,
        () => onSelect(selected === model.name ? '' : model.name));
  }
  target.append(el('div', {class: 'dag-scroll'}, canvas),
      el('p', {class: 'muted legend'}, models.length + ' models, ',
          String(canvas.querySelectorAll('path.edge').length) + ' edges'));
}

function fit(name) {
  return name.length > 20 ? name.slice(0, 19) + '…' : name;
}

function drawActions(target, model, refresh) {
  clear(target);
  if (!model) {
    target.append(el('span', {class: 'muted'}, 'No model selected.'));
    return;
  }
  const result = el('span', {class: 'result', 'data-run-result': ''});
  const button = el('button', {type: 'button', class: 'primary', 'data-action': 'run-now'}, 'Run ' + model + ' now');
  button.addEventListener('click', async () => {
    button.disabled = true;
    clear(result);
    try {
      const answer = (await call('/models/' + encodeURIComponent(model) + '/run', {method: 'POST'})).body;
      result.append('Queued ', el('span', {class: 'mono', 'data-run-id': answer.run_id}, answer.run_id),
          ' (with the models that read it).');
      await refresh();
    } catch (error) {
      result.append(failure(error));
    } finally {
      button.disabled = false;
    }
  });
  target.append(button, result);
}

function renderRuns(target, body, detail) {
  const rows = body.runs.map((run) => {
    const open = el('a', {href: '#', class: 'mono nowrap', 'data-run': run.id}, run.id);
    open.addEventListener('click', async (event) => {
      event.preventDefault();
      await showRun(detail, run.id);
    });
    return {attributes: {'data-run-row': run.id, 'data-status': run.status},
      cells: [open, badge(run.status), el('span', {class: 'mono'}, run.triggers.join(', ')), time(run.queued_at),
        run.duration_ms === null ? '—' : run.duration_ms + ' ms']};
  });
  clear(target).append(completeness(body), rows.length
    ? table(['run', 'status', 'trigger', 'queued', '#duration'], rows)
    : el('p', {class: 'empty'}, 'No runs match.'));
}

async function showRun(target, id) {
  clear(target);
  try {
    const run = await get('/runs/' + encodeURIComponent(id));
    const more = run.trace_count - run.trace_ids.length;
    target.append(el('h3', {}, 'Run ', el('span', {class: 'mono'}, run.id), ' ', badge(run.status)),
        run.trace_count ? el('p', {class: 'muted', 'data-traces': ''}, 'traces ', ...run.trace_ids.flatMap((id, i) => [
          i ? ', ' : '', el('a', {href: '#/find?trace_id=' + id, class: 'mono'}, id)]),
        more > 0 ? ' and ' + more + ' more' : '') : null,
        table(['model', 'status', '#rows', '#duration', 'error'], run.models.map((m) => [m.name, badge(m.status),
          String(m.rows), m.duration_ms + ' ms', m.error || ''])));
  } catch (error) {
    target.append(failure(error));
  }
}
