package dev.tasklife.client;

import dev.tasklife.v1.AbandonTaskRequest;
import dev.tasklife.v1.BatchTransitionTasksItem;
import dev.tasklife.v1.CompleteTaskRequest;
import dev.tasklife.v1.EnqueueTaskRequest;
import dev.tasklife.v1.FailTaskRequest;
import dev.tasklife.v1.KillTaskRequest;
import dev.tasklife.v1.PauseTaskRequest;
import dev.tasklife.v1.ResumeTaskRequest;
import dev.tasklife.v1.RetryTaskRequest;
import dev.tasklife.v1.StartTaskRequest;

/**
 * Wraps a single transition's request into a {@link BatchTransitionTasksItem}, the overload
 * choosing the item's {@code oneof} case:
 *
 * <pre>{@code
 * client.batchTransitionTasks(BatchTransitionTasksRequest.newBuilder()
 *     .addItems(BatchItems.of(EnqueueTaskRequest.newBuilder().setTaskId("a").build()))
 *     .addItems(BatchItems.of(KillTaskRequest.newBuilder().setTaskId("b").build()))
 *     .build());
 * }</pre>
 */
public final class BatchItems {
  private BatchItems() {}

  public static BatchTransitionTasksItem of(EnqueueTaskRequest request) {
    return BatchTransitionTasksItem.newBuilder().setEnqueue(request).build();
  }

  public static BatchTransitionTasksItem of(StartTaskRequest request) {
    return BatchTransitionTasksItem.newBuilder().setStart(request).build();
  }

  public static BatchTransitionTasksItem of(CompleteTaskRequest request) {
    return BatchTransitionTasksItem.newBuilder().setComplete(request).build();
  }

  public static BatchTransitionTasksItem of(FailTaskRequest request) {
    return BatchTransitionTasksItem.newBuilder().setFail(request).build();
  }

  public static BatchTransitionTasksItem of(RetryTaskRequest request) {
    return BatchTransitionTasksItem.newBuilder().setRetry(request).build();
  }

  public static BatchTransitionTasksItem of(PauseTaskRequest request) {
    return BatchTransitionTasksItem.newBuilder().setPause(request).build();
  }

  public static BatchTransitionTasksItem of(ResumeTaskRequest request) {
    return BatchTransitionTasksItem.newBuilder().setResume(request).build();
  }

  public static BatchTransitionTasksItem of(KillTaskRequest request) {
    return BatchTransitionTasksItem.newBuilder().setKill(request).build();
  }

  public static BatchTransitionTasksItem of(AbandonTaskRequest request) {
    return BatchTransitionTasksItem.newBuilder().setAbandon(request).build();
  }
}
