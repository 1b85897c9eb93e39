// The SQL console: one read-only statement, the result as a table, truncation shown, CSV download from the server.

import {call} from './api.js';
import {clear, el, failure, table} from './dom.js';

const LAST = 'interlace.sql';

export async function sqlPage(page) {
  const editor = el('textarea', {rows: 6, spellcheck: 'false', class: 'mono', 'aria-label': 'SQL'});
  editor.value = sessionStorage.getItem(LAST) || 'SELECT * FROM streams.orders ORDER BY _offset DESC LIMIT 50';
  const run = el('button', {type: 'submit', class: 'primary'}, 'Run');
  const csv = el('button', {type: 'button', 'data-action': 'csv'}, 'Download CSV');
  const result = el('div', {class: 'result'});
  const form = el('form', {class: 'sql-form'}, editor, el('div', {class: 'row'}, run, csv,
      el('span', {class: 'muted'}, 'Ctrl+Enter runs. Read-only: one SELECT, WITH, DESCRIBE, SHOW…')));
  page.root.append(el('div', {class: 'page-head'}, el('h1', {}, 'SQL')), el('div', {class: 'panel'}, form), result);

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    sessionStorage.setItem(LAST, editor.value);
    run.disabled = true;
    clear(result).append(el('p', {class: 'muted'}, 'Running…'));
    try {
      const started = performance.now();
      const body = (await call('/sql', {method: 'POST', contentType: 'text/plain', body: editor.value})).body;
      const millis = Math.round(performance.now() - started);
      clear(result).append(el('div', {class: 'panel'},
          el('p', {class: 'counts', 'data-sql-count': String(body.count)}, body.count + ' rows · ' + millis + ' ms'),
          body.truncated ? el('p', {class: 'notice', 'data-truncated': ''}, 'Truncated: only the first ' + body.count
              + ' rows are shown. Add LIMIT/OFFSET, select fewer columns or aggregate.') : null,
          table(body.columns.map((c) => ({label: c.name + ' ' + c.type})), body.rows.map((row) =>
            row.map((value) => value === null ? el('span', {class: 'null'}, 'NULL') : value)), {class: 'grid sql'})));
    } catch (error) {
      clear(result).append(failure(error));
    } finally {
      run.disabled = false;
    }
  });
  editor.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) form.requestSubmit();
  });
  csv.addEventListener('click', async () => {
    try {
      const answer = await call('/sql', {method: 'POST', contentType: 'text/plain', accept: 'text/csv',
        body: editor.value});
      const url = URL.createObjectURL(new Blob([answer.body], {type: 'text/csv'}));
      const link = el('a', {href: url, download: 'interlace-query.csv'});
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      if (answer.headers.get('Interlace-Truncated') === 'true') {
        result.prepend(el('p', {class: 'notice'}, 'The CSV was truncated at ' + answer.headers.get('Interlace-Rows')
            + ' rows.'));
      }
    } catch (error) {
      clear(result).append(failure(error));
    }
  });
}
