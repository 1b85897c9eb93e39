// Talking to the API: the key the user typed (this tab's sessionStorage, never a cookie or a URL) goes in the
// Authorization header; a 401 or 403 asks for another.

const KEY = 'interlace.apiKey';
const listeners = new Set();

export class ApiError extends Error {
  constructor(status, body, requestId) {
    super(body && body.message ? body.message : 'HTTP ' + status);
    this.status = status;
    this.code = body && body.error ? body.error : 'http_' + status;
    this.body = body;
    this.requestId = (body && body.request_id) || requestId;
  }
}

export function apiKey() {
  return sessionStorage.getItem(KEY) || '';
}

export function setApiKey(key) {
  if (key) sessionStorage.setItem(KEY, key); else sessionStorage.removeItem(KEY);
}

/** Called with (status, message) when the server refuses the key (or wants one). */
export function onKeyRefused(listener) {
  listeners.add(listener);
}

/**
 * Parses JSON keeping numbers exact: a number whose text a double would change (49.50, 0.1000000000000000055,
 * 400 digits) stays as its text, and JSON.stringify writes it back unchanged.
 */
export function parseExact(text) {
  if (typeof JSON.rawJSON !== 'function') return JSON.parse(text);
  return JSON.parse(text, (key, value, context) =>
    typeof value === 'number' && context && context.source !== undefined && String(value) !== context.source
      ? JSON.rawJSON(context.source) : value);
}

/**
 * Calls the API; resolves to {status, body, headers} (body parsed when JSON, else text), or rejects with an
 * ApiError for a 4xx/5xx.
 */
export async function call(path, options = {}) {
  const headers = {};
  const key = apiKey();
  if (key) headers.Authorization = 'Bearer ' + key;
  if (options.contentType) headers['Content-Type'] = options.contentType;
  if (options.accept) headers.Accept = options.accept;
  Object.assign(headers, options.headers || {});
  const response = await fetch(path, {
    method: options.method || 'GET',
    headers,
    body: options.body,
    credentials: 'omit',
    cache: 'no-store',
    redirect: 'error',
  });
  const type = response.headers.get('Content-Type') || '';
  const text = await response.text();
  const body = type.startsWith('application/json') && text ? parseExact(text) : text;
  if (!response.ok) {
    const error = new ApiError(response.status, typeof body === 'object' ? body : null,
        response.headers.get('X-Request-Id'));
    if (response.status === 401 || (response.status === 403 && error.code === 'forbidden')) {
      listeners.forEach((listener) => listener(response.status, error.message));
    }
    throw error;
  }
  return {status: response.status, body, headers: response.headers};
}

export async function get(path) {
  return (await call(path)).body;
}

export async function postJson(path, value) {
  return (await call(path, {method: 'POST', contentType: 'application/json', body: JSON.stringify(value)})).body;
}

/** A query string from the non-empty entries of an object. */
export function query(parameters) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined && value !== null && String(value).trim() !== '') search.set(name, String(value).trim());
  }
  const text = search.toString();
  return text ? '?' + text : '';
}
