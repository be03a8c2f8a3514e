// Command line: npm run sim -- --dialect vllm --spec dflash --port 8000 ...
// Bad options fail before anything starts, with one message and exit code 2.
import { OptionError, helpText, parseArgs } from './options';
import { startSim } from './server';

async function main(): Promise<void> {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
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
  // vLLM only listens once its engine is up; SGLang listens at once and answers 503 until ready.
  if (o.dialect === 'vllm' && o.startupDelayMs > 0) {
    process.stdout.write(`sim: vllm loading the model (${o.startupDelayMs / o.timeScale} ms): connections to ${sim.url} are refused until then\n`);
  }
  if (o.dialect === 'vllm') await sim.ready;
  process.stdout.write(`sim: ${o.dialect} (spec ${o.spec}, model ${o.model}, time-scale ${o.timeScale}) listening on ${sim.url}\n`);
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
