// The error of a chart folder that helm's loader would refuse (a `.helmignore` it cannot parse, a symlink loop, a
// socket, a subchart without a Chart.yaml or a name): thrown by helmignore.ts, chart-files.ts and
// chart-dependencies.ts, and caught by whoever asked, who then hands helm the folder as it is, for helm to say why.

export class ChartLoadError extends Error {}
