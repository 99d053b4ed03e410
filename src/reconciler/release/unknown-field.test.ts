// UnknownField events: the unknown fields helm reported after an install or upgrade, one Warning per object.
import { describe, expect, it } from 'vitest';
import { FakeHelm, releaseRecord } from '../../../test/fakes/helm.js';
import { silentLogger } from '../../core/logger.js';
import type { AppliedRelease } from '../../helm/types.js';
import { releaseOptions } from '../inputs/annotations.js';
import type { ActionContext } from './action.js';
import { install } from './install.js';
import { upgrade } from './upgrade.js';

const applied = (version: number, unknownFields?: AppliedRelease['unknownFields']): AppliedRelease => ({
  ...releaseRecord({ version }),
  ...(unknownFields === undefined ? {} : { unknownFields }),
});

function context(helm: FakeHelm) {
  const notes: { type: string; reason: string; message: string }[] = [];
  const ctx: ActionContext = {
    run: {
      name: 'web',
      namespace: 'apps',
      annotations: { periodMs: 0, options: releaseOptions(undefined), paused: false },
      log: silentLogger,
      note: (type, reason, message) => notes.push({ type, reason, message }),
      signal: new AbortController().signal,
    },
    names: [],
    chart: '/charts/nginx',
    values: { password: 'hunter2-very-secret' },
    labels: {},
    helm,
    releases: { history: async () => [] },
  };
  return { ctx, notes };
}

const unknownFieldNotes = <N extends { reason: string }>(notes: N[]) =>
  notes.filter((n) => n.reason === 'UnknownField');

describe('unknown fields the API server warned about', () => {
  it('become one UnknownField Warning per object, naming the object and its fields, after an install', async () => {
    const helm = new FakeHelm().on('install', () =>
      applied(1, [
        { field: 'spec.notAField', objects: ['Service/web-svc'] },
        { field: 'spec.ports[0].bogus', objects: ['Service/web-svc'] },
        { field: 'spec.other', objects: ['Deployment/web', 'Service/web-svc'] },
      ]),
    );
    const { ctx, notes } = context(helm);
    await install(ctx, { pending: false });
    expect(notes.map((n) => n.reason)).toEqual(['InstallSucceeded', 'UnknownField', 'UnknownField']);
    expect(unknownFieldNotes(notes)).toEqual([
      {
        type: 'Warning',
        reason: 'UnknownField',
        message:
          'The API server ignored unknown fields "spec.notAField", "spec.ports[0].bogus", "spec.other" of Service/web-svc of release web',
      },
      {
        type: 'Warning',
        reason: 'UnknownField',
        message: 'The API server ignored unknown field "spec.other" of Deployment/web of release web',
      },
    ]);
  });

  it('name the release when no object of the manifest holds the field, after an upgrade', async () => {
    const helm = new FakeHelm().on('upgrade', () => applied(2, [{ field: 'spec.gone', objects: [] }]));
    const { ctx, notes } = context(helm);
    await upgrade(ctx, { ...applied(1), config: {} });
    expect(unknownFieldNotes(notes).map((n) => n.message)).toEqual([
      'The API server ignored unknown field "spec.gone" of an object of release web',
    ]);
  });

  it('record nothing when the server warned about none', async () => {
    const helm = new FakeHelm().on('install', () => applied(1));
    const { ctx, notes } = context(helm);
    await install(ctx, { pending: false });
    expect(notes.map((n) => n.reason)).toEqual(['InstallSucceeded']);
  });
});
