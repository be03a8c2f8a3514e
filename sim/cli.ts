// Command line: npm run sim -- --engine vllm --spec dflash --port 8000 ...
// Bad options fail before anything starts, with one message and exit code 2.
import { IMITATIONS } from './imitations';
import { OptionError, helpText, parseArgs } from './options';
import { startSim } from './server';

async function main(): Promise<void> {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2), (m) => process.stderr.write(`sim: ${m}\n`));
  } catch (e) {
    if (e instanceof OptionError) {
      process.stderr.write(`sim: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  if (opts === 'help') {
    process.stdout.write(helpText() + '\n');
    return;
  }
  const sim = await startSim(opts);
  const o = sim.options;
  const refusesUntilReady = IMITATIONS[o.engine].readiness === 'listen-when-ready';
  // vLLM only listens once its engine is up; SGLang listens at once and answers 503 until ready.
  if (refusesUntilReady && o.startupDelayMs > 0) {
    process.stdout.write(`sim: ${o.engine} loading the model (${o.startupDelayMs / o.timeScale} ms): connections to ${sim.url} are refused until then\n`);
  }
  if (refusesUntilReady) await sim.ready;
  process.stdout.write(`sim: ${o.engine} (spec ${o.spec}, model ${o.model}, time-scale ${o.timeScale}) listening on ${sim.url}\n`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void sim.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((e: unknown) => {
  process.stderr.write(`sim: ${(e as Error).message}\n`);
  process.exit(1);
});
