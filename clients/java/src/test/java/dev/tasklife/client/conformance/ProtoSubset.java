package dev.tasklife.client.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import java.util.Map;

/**
 * The scenario's {@code expect}: every field given must be in the response (protobuf JSON
 * mapping); messages are compared field by field, maps and scalars exactly, and a repeated
 * field must have exactly as many elements as given, each matching (a message element as a
 * subset, a scalar exactly).
 */
final class ProtoSubset {
  private ProtoSubset() {}

  static void assertContains(JsonObject expected, Message actual) throws InvalidProtocolBufferException {
    // With fields of no presence printed, a field the scenario gives at its default value
    // (a 0, an UNSPECIFIED state) is compared too, instead of being missing.
    String printed = JsonFormat.printer().alwaysPrintFieldsWithNoPresence().print(actual);
    assertContains(expected, JsonParser.parseString(printed).getAsJsonObject(), actual.getDescriptorForType(), "");
  }

  private static void assertContains(JsonObject expected, JsonObject actual, Descriptor type, String path) {
    for (Map.Entry<String, JsonElement> entry : expected.entrySet()) {
      String where = path.isEmpty() ? entry.getKey() : path + "." + entry.getKey();
      FieldDescriptor field = fieldByJsonName(type, entry.getKey());
      assertNotNull(field, "the scenario expects " + where + ", which " + type.getFullName() + " does not have");
      JsonElement actualValue = actual.get(field.getJsonName());
      assertNotNull(actualValue, where + " is missing from the response");
      if (field.isMapField()) {
        assertEquals(entry.getValue(), actualValue, where);
      } else if (field.isRepeated()) {
        assertElements(entry.getValue(), actualValue, field, where);
      } else {
        assertElement(entry.getValue(), actualValue, field, where);
      }
    }
  }

  private static void assertElements(JsonElement expected, JsonElement actual, FieldDescriptor field, String where) {
    assertTrue(expected.isJsonArray(), "the scenario gives " + where + " as " + expected + ", not a list");
    JsonArray expectedElements = expected.getAsJsonArray();
    JsonArray actualElements = actual.getAsJsonArray();
    assertEquals(expectedElements.size(), actualElements.size(), "the number of elements of " + where + ": "
        + actualElements);
    for (int i = 0; i < expectedElements.size(); i++) {
      assertElement(expectedElements.get(i), actualElements.get(i), field, where + "[" + i + "]");
    }
  }

  /** A message as a subset; anything else (a scalar, an enum, a Timestamp printed as text) exactly. */
  private static void assertElement(JsonElement expected, JsonElement actual, FieldDescriptor field, String where) {
    boolean message = field.getJavaType() == FieldDescriptor.JavaType.MESSAGE
        && expected.isJsonObject() && actual.isJsonObject();
    if (message) {
      assertContains(expected.getAsJsonObject(), actual.getAsJsonObject(), field.getMessageType(), where);
    } else {
      assertEquals(expected, actual, where);
    }
  }

  private static FieldDescriptor fieldByJsonName(Descriptor type, String name) {
    for (FieldDescriptor field : type.getFields()) {
      if (field.getJsonName().equals(name) || field.getName().equals(name)) {
        return field;
      }
    }
    return null;
  }
}
