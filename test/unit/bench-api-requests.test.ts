// The bench's count of the API server's requests and watch events over a window (bench/api-requests.ts).
import { describe, expect, it } from 'vitest';
import { diffCounts, parseCounts } from '../../bench/api-requests.ts';

const metrics = (deletes: number, events: number) =>
  [
    '# HELP apiserver_request_total [STABLE] Counter of apiserver requests',
    `apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="secrets",scope="resource",subresource="",verb="DELETE",version="v1"} ${deletes}`,
    `apiserver_request_total{code="404",component="apiserver",dry_run="",group="",resource="secrets",scope="resource",subresource="",verb="DELETE",version="v1"} 1`,
    'apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="WATCH",version="v1"} 9',
    `apiserver_watch_events_total{group="",resource="secrets",version="v1"} ${events}`,
    'apiserver_watch_events_total{group="",kind="ConfigMap",version="v1"} 4',
  ].join('\n');

describe('the bench’s API request window', () => {
  it('counts requests by verb and resource over every code, leaves long WATCH requests out, and counts watch events', () => {
    const diff = diffCounts(parseCounts(metrics(10, 100)), parseCounts(metrics(25, 130)));
    expect(diff).toEqual({ requests: 15, watchEvents: 30, lines: ['watch secrets 30', 'DELETE secrets 15'] });
    expect(parseCounts(metrics(1, 1)).get('watch ConfigMap')).toBe(4); // labelled by kind before Kubernetes 1.33
  });
});
