package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** When the worker's slots are free for the next claim (no server needed). */
@DisplayName("worker slots")
class WorkerSlotsTest {
  @Test
  void aSlotIsFreeAgainOnceItsOutcomeIsInAReportCall() throws Exception {
    WorkerSlots slots = new WorkerSlots(2);
    slots.claimed(2);
    slots.toReporter();
    slots.sending(1);

    assertEquals(1, slots.awaitFree());
  }

  @Test
  void aTaskIsHeldUntilItsReportCallIsOver() {
    WorkerSlots slots = new WorkerSlots(1);
    slots.claimed(1);
    slots.toReporter();
    slots.sending(1);
    assertEquals(1, slots.held());

    slots.released(1, 1);
    assertEquals(0, slots.held());
  }

  @Test
  void anOutcomeQueuedForTheReporterKeepsItsSlotUntilItsCallIsSent() throws Exception {
    WorkerSlots slots = new WorkerSlots(1);
    slots.claimed(1);
    slots.toReporter();

    Waiter<Integer> claim = Waiter.start(slots::awaitFree);
    slots.sending(1);

    assertEquals(1, claim.result());
  }

  @Test
  void aClaimWaitsForTheOutcomesQueuedBehindTheReportCallInFlightToBeSent() throws Exception {
    WorkerSlots slots = new WorkerSlots(2);
    slots.claimed(2);
    slots.toReporter();
    slots.sending(1);
    slots.toReporter(); // queued while that call is in flight

    Waiter<Integer> claim = Waiter.start(slots::awaitFree);
    slots.released(1, 1);
    slots.sending(1);

    assertEquals(2, claim.result());
  }

  @Test
  void awaitFreeAnswersNoneOnceClosed() throws Exception {
    WorkerSlots slots = new WorkerSlots(1);
    slots.claimed(1);

    Waiter<Integer> claim = Waiter.start(slots::awaitFree);
    slots.close();

    assertEquals(0, claim.result());
  }

  /** A call on a thread of its own, started and known to be waiting (not yet returned). */
  static final class Waiter<T> {
    private final Thread thread;
    private final AtomicReference<Object> outcome = new AtomicReference<>();

    private Waiter(Callable<T> call) {
      thread = new Thread(() -> {
        try {
          outcome.set(call.call());
        } catch (Exception e) {
          outcome.set(e);
        }
      });
    }

    static <T> Waiter<T> start(Callable<T> call) {
      Waiter<T> waiter = new Waiter<>(call);
      waiter.thread.start();
      Thread.State state;
      while ((state = waiter.thread.getState()) != Thread.State.WAITING && state != Thread.State.TIMED_WAITING
          && state != Thread.State.TERMINATED) {
        Thread.onSpinWait();
      }
      assertNotEquals(Thread.State.TERMINATED, state, "returned before it was let go: " + waiter.outcome.get());
      return waiter;
    }

    /** What the call returned once let go (20 s at most: it may never be). */
    @SuppressWarnings("unchecked")
    T result() throws Exception {
      thread.join(20_000);
      assertFalse(thread.isAlive(), "still waiting");
      if (outcome.get() instanceof Exception e) {
        throw e;
      }
      return (T) outcome.get();
    }
  }
}
