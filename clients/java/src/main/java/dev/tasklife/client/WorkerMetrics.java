package dev.tasklife.client;

/**
 * A snapshot of a {@link Worker}'s counters (since it started) and its running gauge.
 *
 * @param claimed tasks received from ClaimTasks
 * @param completed tasks reported complete (CompleteTask recorded)
 * @param failed tasks reported failed (FailTask recorded), those failed on stop included
 * @param dropped tasks taken away (lease lost, killed, paused, gone) whose result was not recorded
 * @param heartbeatFailures heartbeats that failed without the lease being known lost
 * @param reportFailures outcomes the server refused for another reason, or that could not be sent
 * @param reportCalls BatchTransitionTasks calls that carried outcomes (retries not counted)
 * @param running tasks held now: claimed and not yet reported or dropped
 * @param killed kills asked with a grace period that the worker confirmed (KillTask recorded)
 *     after interrupting the handler
 */
public record WorkerMetrics(long claimed, long completed, long failed, long dropped, long heartbeatFailures,
    long reportFailures, long reportCalls, int running, long killed) {}
