// Small live charts drawn by hand on a canvas: a line of the last samples, its latest value beside it.

import {el} from './dom.js';

/** A sparkline canvas for samples (numbers, oldest first); the canvas carries the latest value for tests. */
export function sparkline(samples, options = {}) {
  const width = options.width || 120;
  const height = options.height || 28;
  const ratio = window.devicePixelRatio || 1;
  const canvas = el('canvas', {class: 'spark', width: Math.round(width * ratio), height: Math.round(height * ratio),
    'data-latest': samples.length ? String(samples[samples.length - 1]) : '', 'data-samples': samples.join(' '),
    role: 'img',
    'aria-label': (options.label || 'chart') + ': ' + (samples.length ? samples[samples.length - 1] : 'no data yet')});
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  const context = canvas.getContext('2d');
  context.scale(ratio, ratio);
  const max = Math.max(1, ...samples);
  const step = samples.length > 1 ? (width - 2) / (samples.length - 1) : 0;
  const y = (value) => height - 2 - (value / max) * (height - 4);
  context.strokeStyle = 'rgba(127,127,127,0.25)';
  context.beginPath();
  context.moveTo(0, height - 1.5);
  context.lineTo(width, height - 1.5);
  context.stroke();
  if (samples.length) {
    context.beginPath();
    samples.forEach((value, i) => (i ? context.lineTo(1 + i * step, y(value)) : context.moveTo(1, y(value))));
    context.lineWidth = 1.5;
    context.strokeStyle = options.color || '#3b82f6';
    context.stroke();
    context.lineTo(1 + (samples.length - 1) * step, height);
    context.lineTo(1, height);
    context.closePath();
    context.fillStyle = options.fill || 'rgba(59,130,246,0.12)';
    context.fill();
  }
  return canvas;
}

/** A bounded series per name, kept across refreshes of a page. */
export class Series {
  constructor(capacity = 60) {
    this.capacity = capacity;
    this.values = new Map();
  }

  push(name, value) {
    const list = this.values.get(name) || [];
    list.push(value);
    while (list.length > this.capacity) list.shift();
    this.values.set(name, list);
    return list;
  }

  get(name) {
    return this.values.get(name) || [];
  }
}
