export { trajectoriesSource, isTrajectoryFile, verify } from './stage.js';
export { resolveTrajectoriesOptions, TRAJECTORIES_DEFAULTS, TRAJECTORIES_OPTION_KEYS, type TrajectoriesOptions } from './options.js';
export { renderTrajectory, parseTrajectory, LOSS_ON, type LossOn, type Template, type Rendered } from './chatml.js';
export { TEMPLATES, TEMPLATE_NAMES, type TemplateName } from './templates/index.js';
export { REASONS as TRAJECTORY_REASONS, type Trajectory, type Message, type ToolCall, type ToolDef } from './model.js';
export { readOpenaiRow, readSharegptRow, readSweAgent } from './readers.js';
