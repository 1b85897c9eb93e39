package dev.interlace.runtime.records;

/**
 * This process's start: its {@code boot-…} id, which start-up and shutdown records carry, and when it started.
 */
public record Boot(String id, long startedAtMicros) {}
