// The node chaos group's release accounting (chaos/scenarios/node/fleet.ts): a helm release record decoded from its
// Secret as the API returns it, and what counts as a double write among a release's revisions.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeRelease, type ReleasePayload, repeatedWrites } from '../../chaos/scenarios/node/fleet.ts';

const rev = (version: number, data: string, description = 'Upgrade complete'): ReleasePayload => ({
  name: 'n001',
  version,
  config: { data },
  info: { status: 'superseded', description },
});

describe('the node group release accounting', () => {
  it('decodes a record as the Secret API returns it (base64 of helm base64 of gzip JSON)', () => {
    const payload = { name: 'n001', version: 3, config: { data: 'c7' }, info: { status: 'deployed' } };
    const helm = gzipSync(Buffer.from(JSON.stringify(payload))).toString('base64');
    expect(decodeRelease(Buffer.from(helm).toString('base64'))).toEqual(payload);
  });

  it('counts an upgrade that repeats the values of the revision before it', () => {
    expect(repeatedWrites([rev(1, 'c1', 'Install complete'), rev(2, 'c2'), rev(3, 'c2'), rev(4, 'c3')])).toEqual({
      doubles: ['n001:3 (2 superseded "Upgrade complete" then 3 superseded "Upgrade complete")'],
      retries: [],
    });
  });

  it('counts the retry of a failed revision (an upgrade interrupted or refused) as a retry, not a double write', () => {
    const failed = { ...rev(2, 'c2'), info: { status: 'failed', description: 'Upgrade "n001" failed: canceled' } };
    expect(repeatedWrites([rev(1, 'c1', 'Install complete'), failed, rev(3, 'c2')])).toEqual({
      doubles: [],
      retries: ['n001:3 (2 failed "Upgrade "n001" failed: canceled" then 3 superseded "Upgrade complete")'],
    });
  });

  it('leaves out rollbacks, changed values and revisions whose predecessor is missing', () => {
    const revisions = [rev(2, 'c2'), rev(3, 'bad'), rev(4, 'c2', 'Rollback to 2'), rev(6, 'c2'), rev(7, 'c9')];
    expect(repeatedWrites(revisions)).toEqual({ doubles: [], retries: [] });
    expect(repeatedWrites([rev(2, 'c2'), rev(1, 'c1', 'Install complete')])).toEqual({ doubles: [], retries: [] });
  });
});
