package dev.tasklife.client.conformance;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** clients/conformance/scenario.json, with {@code ${run}} already replaced by a fresh run id. */
final class Scenario {
  /** Maven runs the tests in clients/java. */
  static final Path FILE = Path.of("..", "conformance", "scenario.json");

  private static final Pattern CURSOR = Pattern.compile("\\$\\{cursor:([^}]+)}");

  final String runId;
  final List<JsonObject> steps;

  private Scenario(String runId, List<JsonObject> steps) {
    this.runId = runId;
    this.steps = steps;
  }

  static Scenario load(String runId) throws IOException {
    String text = Files.readString(FILE, StandardCharsets.UTF_8).replace("${run}", runId);
    JsonArray steps = JsonParser.parseString(text).getAsJsonObject().getAsJsonArray("steps");
    List<JsonObject> list = new ArrayList<>();
    for (JsonElement step : steps) {
      list.add(step.getAsJsonObject());
    }
    return new Scenario(runId, List.copyOf(list));
  }

  /** {@code step} with every {@code ${cursor:STEP}} replaced by the cursor of STEP's event. */
  static JsonObject withCursors(JsonObject step, Map<String, String> eventCursors) {
    Matcher matcher = CURSOR.matcher(step.toString());
    StringBuilder text = new StringBuilder();
    while (matcher.find()) {
      String cursor = eventCursors.get(matcher.group(1));
      if (cursor == null) {
        throw new IllegalStateException("no event cursor from step " + matcher.group(1));
      }
      matcher.appendReplacement(text, Matcher.quoteReplacement(cursor));
    }
    matcher.appendTail(text);
    return JsonParser.parseString(text.toString()).getAsJsonObject();
  }
}
