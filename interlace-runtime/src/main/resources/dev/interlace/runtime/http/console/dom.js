// Building the page. Everything shown comes from the API and may be hostile (events are sent by anyone with a
// publish key), so text only ever goes in through textContent / createTextNode: nothing from the API is parsed as HTML.

/** An element: el('td', {class: 'num'}, 'text', child, ...). Attribute values and children are never parsed as HTML. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      node.addEventListener(name.slice(2), value);
    } else if (name === 'class') {
      node.className = value;
    } else if (name === 'text') {
      node.textContent = value;
    } else {
      node.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(node, children);
  return node;
}

export function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value !== undefined && value !== null) node.setAttribute(name, String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(display(child)));
  }
}

/** A value as text: numbers kept exact (see api.js), objects as JSON. */
export function display(value) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object' && JSON.isRawJSON && JSON.isRawJSON(value)) return value.rawJSON;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/** A table with a header row; rows are arrays of cells (a Node or a value). */
export function table(headers, rows, options = {}) {
  const head = el('thead', {}, el('tr', {}, headers.map((h) => el('th', {class: numeric(h) ? 'num' : null}, label(h)))));
  const body = el('tbody', {}, rows.map((row) => el('tr', row.attributes || {}, (row.cells || row).map((cell, i) =>
      el('td', {class: numeric(headers[i]) ? 'num' : null}, cell)))));
  const t = el('table', {class: options.class || 'grid'}, head, body);
  return el('div', {class: 'table-wrap'}, t);
}

function label(header) {
  return typeof header === 'string' ? header.replace(/^#/, '') : header.label;
}

function numeric(header) {
  return typeof header === 'string' && header.startsWith('#');
}

/** A JSON value as readable, exact text (decimals as sent). */
export function json(value, pretty = false) {
  return el('code', {class: 'json'}, JSON.stringify(value, null, pretty ? 2 : 0));
}

export function badge(text, kind) {
  return el('span', {class: 'badge ' + (kind || text || '')}, text);
}

export function card(label, value, note) {
  return el('div', {class: 'card'}, el('div', {class: 'card-label'}, label),
      el('div', {class: typeof value === 'string' && !/^-?\d+$/.test(value) ? 'card-value text' : 'card-value',
        'data-card': label}, value), note ? el('div', {class: 'card-note'}, note) : null);
}

export function section(title, ...children) {
  return el('section', {class: 'panel'}, el('h2', {}, title), ...children);
}

/** An API failure shown where it happened: the error code, the server's message, the request id. */
export function failure(error) {
  return el('div', {class: 'error-box', role: 'alert'},
      el('strong', {}, error.code ? error.code + (error.status ? ' (' + error.status + ')' : '') : 'error'), ' ',
      error.message || String(error),
      error.requestId ? el('span', {class: 'muted'}, ' · request ', error.requestId) : null);
}

/** "3 of 17 · store", with the ring's details when any of the list came from memory. */
export function completeness(body) {
  const parts = [body.count + ' shown', body.total + ' in all'];
  if (body.completeness) parts.push('completeness: ' + body.completeness);
  return el('p', {class: 'counts', 'data-counts': ''}, parts.join(' · '), body.ring
    ? [' · ring since ', time(body.ring.since), ', capacity ' + body.ring.capacity + ', dropped ' + body.ring.dropped]
    : null);
}

/** An RFC 3339 time shortened for reading; the full value in the tooltip. */
export function time(value) {
  if (!value) return '—';
  const text = String(value);
  const span = el('time', {datetime: text, title: text}, text.replace('T', ' ').replace(/\.(\d{3})\d*Z$/, '.$1Z'));
  return span;
}

/** A form control with its caption above it (placeholders vanish once a value is typed). */
export function field(caption, control) {
  return el('label', {class: 'field'}, el('span', {class: 'field-caption'}, caption), control);
}

export function link(href, text) {
  return el('a', {href}, text);
}

export function streamLink(name) {
  return link('#/stream/' + encodeURIComponent(name), name);
}

export function requestLink(id) {
  if (!id) return '—';
  return el('a', {href: '#/find?request_id=' + encodeURIComponent(id), class: 'mono nowrap'}, id);
}
