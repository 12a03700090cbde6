"""The timer runner: applies the lifecycle policies when a task's durable timer comes due."""
