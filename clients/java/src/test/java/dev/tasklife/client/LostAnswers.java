package dev.tasklife.client;

import com.google.common.util.concurrent.MoreExecutors;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Context;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fault for the worker tests: the first {@code count} calls of one method reach the server,
 * which does its work, but their answers are replaced by UNAVAILABLE, as when a connection
 * breaks after the server answered. Or, with {@link #neverSent}, those calls fail at once
 * without reaching the server; or, with {@link #held}, their answers are held back until the
 * caller cancels the call, as a server slow to answer. Every request of the method is kept,
 * in order.
 */
final class LostAnswers implements ClientInterceptor {
  private final String method;
  private final AtomicInteger left;
  private final boolean send;
  private final boolean hold;
  final List<Object> requests = new CopyOnWriteArrayList<>();

  private LostAnswers(String method, int count, boolean send, boolean hold) {
    this.method = method;
    this.left = new AtomicInteger(count);
    this.send = send;
    this.hold = hold;
  }

  static LostAnswers of(String method, int count) {
    return new LostAnswers(method, count, true, false);
  }

  static LostAnswers neverSent(String method, int count) {
    return new LostAnswers(method, count, false, false);
  }

  static LostAnswers held(String method, int count) {
    return new LostAnswers(method, count, true, true);
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> descriptor, CallOptions options, Channel next) {
    if (!descriptor.getBareMethodName().equals(method)) {
      return next.newCall(descriptor, options);
    }
    boolean lose = left.getAndDecrement() > 0;
    Status lost = Status.UNAVAILABLE.withDescription("injected: the answer was lost");
    AtomicBoolean closed = new AtomicBoolean();
    return new SimpleForwardingClientCall<>(next.newCall(descriptor, options)) {
      private Listener<R> listener;

      @Override
      public void cancel(String message, Throwable cause) {
        super.cancel(message, cause);
        if (lose && hold && closed.compareAndSet(false, true)) {
          // Through the call's executor: a blocking stub waits on it, not on the listener.
          Executor executor = options.getExecutor() == null ? MoreExecutors.directExecutor() : options.getExecutor();
          executor.execute(() -> listener.onClose(
              Status.CANCELLED.withDescription("injected: cancelled while the answer was held"), new Metadata()));
        }
      }

      @Override
      public void start(Listener<R> responseListener, Metadata headers) {
        listener = responseListener;
        if (lose && hold) {
          // A cancelled Context (the worker's way to cancel a claim) ends the call too.
          Context.current().addListener(context -> cancel("context cancelled", null), MoreExecutors.directExecutor());
        }
        if (lose && !send) {
          return;
        }
        super.start(!lose ? responseListener : new SimpleForwardingClientCallListener<>(responseListener) {
          @Override
          public void onMessage(R message) {}

          @Override
          public void onClose(Status status, Metadata trailers) {
            if (!hold && closed.compareAndSet(false, true)) {
              super.onClose(lost, new Metadata());
            }
          }
        }, headers);
      }

      @Override
      public void sendMessage(Q message) {
        requests.add(message);
        if (!lose || send) {
          super.sendMessage(message);
        }
      }

      @Override
      public void halfClose() {
        if (lose && !send) {
          listener.onClose(lost, new Metadata());
          return;
        }
        super.halfClose();
      }

      @Override
      public void request(int numMessages) {
        if (!lose || send) {
          super.request(numMessages);
        }
      }
    };
  }
}
