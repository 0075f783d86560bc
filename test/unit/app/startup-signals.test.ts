/** The signal handling of a starting worker: installed once however often asked, and gone when the worker takes over. */
import { expect, it } from 'vitest';
import { stopOnSignalWhileStarting, takeOverSignals } from '../../../src/app/startup-signals.js';

it('is installed once (the entry and the worker both ask) and removed whole when the worker takes signals over', () => {
  const before = { term: process.listenerCount('SIGTERM'), int: process.listenerCount('SIGINT') };
  stopOnSignalWhileStarting();
  stopOnSignalWhileStarting();
  expect(process.listenerCount('SIGTERM')).toBe(before.term + 1);
  expect(process.listenerCount('SIGINT')).toBe(before.int + 1);
  takeOverSignals();
  expect(process.listenerCount('SIGTERM')).toBe(before.term);
  expect(process.listenerCount('SIGINT')).toBe(before.int);
});
