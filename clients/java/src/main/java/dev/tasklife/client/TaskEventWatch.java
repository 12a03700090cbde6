package dev.tasklife.client;

import dev.tasklife.v1.TaskEvent;
import dev.tasklife.v1.WatchTaskEventsRequest;
import dev.tasklife.v1.WatchTaskEventsResponse;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The events of a {@code WatchTaskEvents} subscription, one at a time, surviving broken
 * streams: when the stream ends with UNAVAILABLE (a network drop, a server shutting down), is
 * cancelled underneath, or just ends, the watch opens a new one with {@code after_cursor} = the
 * last cursor received, from any message, progress messages included. The server resumes right
 * after that cursor, so no event is skipped or delivered twice.
 *
 * <p>The call starts when the watch is made, so a request with neither {@code after_cursor}
 * nor {@code from_beginning} sees every change committed from then on. {@link #hasNext()}
 * blocks until an event arrives. Iterate on one thread; {@link #close()}
 * and {@link #reconnect()} may be called from any thread. Not thread-safe otherwise.
 *
 * <pre>{@code
 * try (TaskEventWatch watch = client.watch(request)) {
 *   while (watch.hasNext()) {
 *     TaskEvent event = watch.next();
 *     ...
 *     saveCheckpoint(watch.lastCursor());
 *   }
 * }
 * }</pre>
 */
public final class TaskEventWatch implements Iterator<TaskEvent>, AutoCloseable {
  private final Function<WatchTaskEventsRequest, Iterator<WatchTaskEventsResponse>> openStream;
  private final WatchTaskEventsRequest request;
  private final ReconnectPolicy policy;
  private final ArrayDeque<TaskEvent> received = new ArrayDeque<>();

  private Iterator<WatchTaskEventsResponse> stream;
  private volatile Context.CancellableContext streamContext;
  private volatile boolean closed;
  private volatile String lastCursor;
  private int reconnects;

  TaskEventWatch(Function<WatchTaskEventsRequest, Iterator<WatchTaskEventsResponse>> openStream,
      WatchTaskEventsRequest request, ReconnectPolicy policy) {
    this.openStream = openStream;
    this.request = request;
    this.policy = policy;
    // Open now, not at the first read: a watch "from now" starts when the server receives
    // the call, and must not miss the changes made between watch() and hasNext().
    this.stream = open();
  }

  /** Waits for the next event; false only once the watch is closed. */
  @Override
  public boolean hasNext() {
    while (received.isEmpty() && !closed) {
      receiveMessage();
    }
    return !closed;
  }

  @Override
  public TaskEvent next() {
    if (!hasNext()) {
      throw new NoSuchElementException("the watch is closed");
    }
    return received.poll();
  }

  /** The events as a sequential stream that ends when the watch is closed. */
  public Stream<TaskEvent> stream() {
    return StreamSupport.stream(Spliterators.spliteratorUnknownSize(this, Spliterator.ORDERED | Spliterator.NONNULL), false);
  }

  /**
   * The cursor after the last message received (events already received but not yet returned
   * by {@link #next()} lie before it). Empty until the server's first message.
   */
  public Optional<String> lastCursor() {
    return Optional.ofNullable(lastCursor);
  }

  /** How many times the watch has opened a new stream after the first. */
  public int reconnects() {
    return reconnects;
  }

  /**
   * Drops the current stream, as a network failure would; the watch reconnects from its last
   * cursor when it next reads. Use it to move to another server behind the same address.
   */
  public void reconnect() {
    Context.CancellableContext context = streamContext;
    if (context != null) {
      context.cancel(null);
    }
  }

  /** Ends the subscription; {@link #hasNext()} then returns false (on the iterating thread too). */
  @Override
  public void close() {
    closed = true;
    reconnect();
  }

  /** Reads one message from the stream, (re)opening it as needed. */
  private void receiveMessage() {
    int failures = 0;
    while (!closed) {
      StatusRuntimeException failure = null;
      try {
        if (stream == null) {
          stream = open();
        }
        if (stream.hasNext()) {
          WatchTaskEventsResponse message = stream.next();
          // Events and cursor move together: whatever happens next, the cursor never points
          // past an event this watch has not queued, nor before one it has.
          received.addAll(message.getEventsList());
          lastCursor = message.getCursor();
          return;
        }
        // The server closed the stream without an error: a proxy's doing. Resume.
      } catch (StatusRuntimeException e) {
        failure = e;
      }
      stream = null;
      if (closed) {
        return;
      }
      if (failure != null && !resumable(failure)) {
        throw TasklifeErrors.decode(failure);
      }
      failures++;
      if (failures >= policy.maxConsecutiveFailures()) {
        throw failure != null
            ? TasklifeErrors.decode(failure)
            : TasklifeErrors.decode(Status.UNAVAILABLE.withDescription("the watch stream kept ending").asRuntimeException());
      }
      pause(policy.backoffAfter(failures));
      reconnects++;
    }
  }

  private Iterator<WatchTaskEventsResponse> open() {
    WatchTaskEventsRequest resumed = lastCursor == null ? request : request.toBuilder().setAfterCursor(lastCursor).build();
    // The call belongs to its own cancellable context so that reconnect() and close() can end
    // it from any thread: cancelling the context cancels the call.
    Context.CancellableContext context = Context.current().withCancellation();
    Context.CancellableContext broken = streamContext;
    if (broken != null) {
      broken.cancel(null); // releases the context of the stream that broke
    }
    streamContext = context;
    if (closed) {
      context.cancel(null);
    }
    Context previous = context.attach();
    try {
      return openStream.apply(resumed);
    } finally {
      context.detach(previous);
    }
  }

  private static boolean resumable(StatusRuntimeException failure) {
    // An interrupted reader gets CANCELLED too; it asked to stop, not to reconnect.
    if (Thread.currentThread().isInterrupted()) {
      return false;
    }
    Status.Code code = failure.getStatus().getCode();
    return code == Status.Code.UNAVAILABLE || code == Status.Code.CANCELLED;
  }

  private static void pause(Duration backoff) {
    if (backoff.isZero()) {
      return;
    }
    try {
      Thread.sleep(backoff.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw TasklifeErrors.decode(Status.CANCELLED.withDescription("interrupted while reconnecting").withCause(e).asRuntimeException());
    }
  }
}
