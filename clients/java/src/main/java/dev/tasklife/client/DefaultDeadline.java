package dev.tasklife.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Gives every unary call that has no deadline of its own one that starts when the call does.
 * Streams are left alone: a watch is meant to stay open.
 */
final class DefaultDeadline implements ClientInterceptor {
  private final Duration deadline;

  DefaultDeadline(Duration deadline) {
    this.deadline = deadline;
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    if (method.getType() == MethodDescriptor.MethodType.UNARY && options.getDeadline() == null) {
      options = options.withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS);
    }
    return next.newCall(method, options);
  }
}
