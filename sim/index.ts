// Public entry point of the simulator.
export { startSim, type SimHandle, type GroundTruth } from './server';
export { resolveOptions, parseArgs, helpText, OptionError, OPTION_SPECS, SPEC_DEFAULTS, type SimOptions, type SimOptionsInput, type SpecMode } from './options';
export { IMITATIONS, ENGINE_NAMES, type EngineName, type Imitation } from './imitations';
export type { Faults } from './faults';
export type { RequestRecord, EventRecord, Summary, Stats } from './ground-truth';
export type { StepRecord } from './scheduler/batch-scheduler';
