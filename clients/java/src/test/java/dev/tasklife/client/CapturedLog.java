package dev.tasklife.client;

import java.text.MessageFormat;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;

/** A System.Logger that keeps every line, formatted as java.util.logging would, for the tests to read. */
final class CapturedLog implements System.Logger {
  private final List<String> lines = new CopyOnWriteArrayList<>();

  /** The lines so far that contain {@code text}. */
  List<String> containing(String text) {
    return lines.stream().filter(line -> line.contains(text)).toList();
  }

  @Override
  public String getName() {
    return "captured";
  }

  @Override
  public boolean isLoggable(Level level) {
    return true;
  }

  @Override
  public void log(Level level, ResourceBundle bundle, String message, Throwable thrown) {
    lines.add(level + " " + message);
  }

  @Override
  public void log(Level level, ResourceBundle bundle, String format, Object... params) {
    lines.add(level + " " + (params == null || params.length == 0 ? format : MessageFormat.format(format, params)));
  }
}
