// A VU's place among its run's VUs: what gives it its own prompts, adapters and start offset.

/**
 * k6 lends a run any free VUs of its pool, so `idInTest` modulo the run's VUs repeats whenever the
 * VUs lent are not consecutive (8 VUs then 4 gave two VUs slot 0 and none slot 2): those two VUs
 * sent the same prompts side by side. A closed-loop run starts one iteration on each of its VUs at
 * once, so the numbers of its first `vus` iterations (`exec.scenario.iterationInTest`, 0…vus−1,
 * unique across k6 instances too) are a slot each. A VU whose first iteration came later (an open
 * loop starts VUs as arrivals need them) keeps the modulo.
 *
 * firstIteration: the scenario's iteration number of this VU's first iteration in the run.
 * idInTest: the VU's id in the test (1-based). vus: the run's VUs (≥ 1). Returns 0…vus−1.
 */
export function runSlot(firstIteration: number, idInTest: number, vus: number): number {
  if (Number.isInteger(firstIteration) && firstIteration >= 0 && firstIteration < vus) return firstIteration;
  return (idInTest - 1) % vus;
}
