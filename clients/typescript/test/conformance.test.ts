// The shared conformance scenario (clients/conformance/scenario.json), step by step, against the
// live server at TASKLIFE_ADDRESS (host:port, plaintext). Skipped when that variable is unset.
import { test } from "node:test";
import { TasklifeClient } from "../src/index.js";
import { checkKnownKeys, loadScenario, newRunId, substitute, type Step } from "./conformance/scenario.js";
import { runCall, runCas, runCooperativeKill, runHistory, runWatch, runWorker, type Responses } from "./conformance/steps.js";

const address = process.env["TASKLIFE_ADDRESS"];
const scenario = loadScenario();

test("conformance scenario", { skip: address ? false : "TASKLIFE_ADDRESS is not set" }, async (t) => {
  const client = TasklifeClient.connect(address!, { defaultTimeoutMs: 10_000 });
  t.after(() => client.close());
  const run = newRunId();
  const responses: Responses = new Map();
  const cursorOf = (stepId: string): string => {
    const response = responses.get(stepId)?.response as { event?: { cursor: string } } | undefined;
    if (!response?.event?.cursor) throw new Error(`step ${stepId} left no event cursor`);
    return response.event.cursor;
  };

  for (const raw of scenario.steps) {
    // Substituted when the step runs: ${cursor:STEP} needs the earlier steps' responses.
    await t.test(`${raw.id} (${raw.op})`, async () => {
      const step: Step = substitute(raw, run, cursorOf);
      checkKnownKeys(step);
      switch (step.op) {
        case "call":
          return runCall(client, step, responses);
        case "cas":
          return runCas(client, step, responses);
        case "history":
          return runHistory(client, step);
        case "watch":
          return runWatch(client, step);
        case "worker":
          return runWorker(client, step);
        case "cooperative_kill":
          return runCooperativeKill(client, step);
        default:
          throw new Error(`unknown op in step ${JSON.stringify(raw)}`);
      }
    });
  }
});
