// Public entry point of the simulator.
export { startSim, type SimHandle, type GroundTruth } from './server';
export { resolveOptions, parseArgs, helpText, OptionError, OPTION_SPECS, SPEC_DEFAULTS, type SimOptions, type SimOptionsInput, type SpecMode } from './options';
export { ENGINES, ENGINE_NAMES, type EngineName, type EngineProfile } from './engines';
export type { Faults } from './faults';
export type { RequestRecord, EventRecord, Summary, Stats } from './ground-truth';
export type { StepRecord } from './engine/scheduler';
