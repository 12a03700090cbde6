package dev.tasklife.client.conformance;

import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.google.gson.JsonObject;
import dev.tasklife.client.ConnectOptions;
import dev.tasklife.client.LiveServer;
import dev.tasklife.client.TasklifeClient;
import java.io.IOException;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * The shared conformance scenario (clients/conformance/scenario.json) against the live server
 * at TASKLIFE_ADDRESS, one test per step, in order. A step runs only if every step before it
 * passed, since each builds on the task state the previous ones left.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("conformance scenario")
class ConformanceTest {
  private TasklifeClient client;
  private boolean anEarlierStepFailed;

  @TestFactory
  Stream<DynamicTest> scenario() throws IOException {
    String address = LiveServer.address();
    // Letters, digits and '-': unique per run, so runs against one server never collide.
    Scenario scenario = Scenario.load("java-" + UUID.randomUUID().toString().substring(0, 13));
    client = TasklifeClient.connect(ConnectOptions.plaintext(address).withOperator("conformance-java"));
    ScenarioSteps steps = new ScenarioSteps(client, address);
    return scenario.steps.stream().map(step -> DynamicTest.dynamicTest(describe(step), () -> {
      assumeFalse(anEarlierStepFailed, "skipped: an earlier step failed");
      try {
        steps.run(step);
      } catch (Throwable failure) {
        anEarlierStepFailed = true;
        throw failure;
      }
    }));
  }

  @AfterAll
  void disconnect() {
    if (client != null) {
      client.close();
    }
  }

  private static String describe(JsonObject step) {
    String method = step.has("method") ? " " + step.get("method").getAsString() : "";
    return step.get("id").getAsString() + " (" + step.get("op").getAsString() + method + ")";
  }
}
