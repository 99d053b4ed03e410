// The error of a reconcile whose chart folder is gone or cannot be read under the running operator (removed,
// replaced, a file it cannot open): its message names the folder and what is wrong, for the Irreconcilable condition
// and its event. Built by inputs.ts from the chart digest's read error; never carries chart content.
import { checkChartDir } from '../../config/chart-dir.js';
import { OperatorError } from '../../core/errors.js';

export class ChartUnreadableError extends OperatorError {
  readonly code = 'CHART_UNREADABLE';
  /** The chart folder of the watch, as watches.yaml resolved it. */
  readonly chartDir: string;

  constructor(chartDir: string, cause: unknown) {
    super(
      `chart ${chartDir} cannot be read: ${problem(chartDir, cause)}; restore it, or point this kind's chart in ` +
        'watches.yaml at a chart folder and restart the operator (nothing was installed or changed; retrying)',
      { cause },
    );
    this.chartDir = chartDir;
  }
}

/** What is wrong with the folder now ("it does not exist", "it has no Chart.yaml"), else the read error's first line. */
function problem(chartDir: string, cause: unknown): string {
  const now = checkChartDir(chartDir);
  if (now !== undefined) return now;
  const message = cause instanceof Error ? cause.message : String(cause);
  return message.split('\n')[0] ?? message;
}
