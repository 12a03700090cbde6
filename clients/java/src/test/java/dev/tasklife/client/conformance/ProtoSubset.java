package dev.tasklife.client.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

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
 * mapping); messages are compared field by field, maps, repeated fields and scalars exactly.
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
      boolean nestedMessage = field.getJavaType() == FieldDescriptor.JavaType.MESSAGE
          && !field.isRepeated() && entry.getValue().isJsonObject() && actualValue.isJsonObject();
      if (nestedMessage) {
        assertContains(entry.getValue().getAsJsonObject(), actualValue.getAsJsonObject(), field.getMessageType(), where);
      } else {
        assertEquals(entry.getValue(), actualValue, where);
      }
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
