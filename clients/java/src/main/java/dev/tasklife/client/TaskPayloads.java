package dev.tasklife.client;

import com.google.protobuf.ByteString;
import dev.tasklife.v1.TaskPayload;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Builds the {@link TaskPayload}s a task is created with ({@code CreateTaskRequest.input}) and a
 * {@link ResultHandler} returns as its result: bytes with their media type, text, or JSON text.
 *
 * <pre>{@code
 * TaskPayloads.json("{\"rows\": 1234}");                 // application/json
 * TaskPayloads.text("rows=1234");                        // text/plain; charset=utf-8
 * TaskPayloads.of(png, "image/png");
 * }</pre>
 *
 * The server requires a content type with any data and limits the data to its
 * {@code --max-payload-bytes} (256 KiB by default); it refuses anything else.
 */
public final class TaskPayloads {
  public static final String JSON = "application/json";
  public static final String TEXT = "text/plain; charset=utf-8";

  private TaskPayloads() {}

  /** The bytes as they are, with their MIME type (such as {@code image/png}). */
  public static TaskPayload of(byte[] data, String contentType) {
    return of(ByteString.copyFrom(data), contentType);
  }

  public static TaskPayload of(ByteString data, String contentType) {
    return TaskPayload.newBuilder().setData(Objects.requireNonNull(data, "data"))
        .setContentType(Objects.requireNonNull(contentType, "contentType")).build();
  }

  /** The text in UTF-8, as {@code text/plain; charset=utf-8}. */
  public static TaskPayload text(String text) {
    return of(ByteString.copyFromUtf8(text), TEXT);
  }

  /** JSON the caller serialised (Java has no JSON library of its own), as {@code application/json}. */
  public static TaskPayload json(String json) {
    return of(json.getBytes(StandardCharsets.UTF_8), JSON);
  }
}
