import { describe, expect, it } from 'vitest';
import { watchNamespaces } from './namespaces.js';

describe('watchNamespaces', () => {
  it.each([
    [undefined, ['']],
    ['', ['']],
    [' , ,', ['']],
    ['apps', ['apps']],
    [' apps , web,,apps ', ['apps', 'web']],
  ])('reads WATCH_NAMESPACE=%j as %j', (value, expected) => {
    expect(watchNamespaces(value)).toEqual(expected);
  });
});
