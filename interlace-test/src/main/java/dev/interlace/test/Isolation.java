package dev.interlace.test;

/** How long one server and its data directory live in a test class. */
public enum Isolation {
    /** A fresh server on a fresh data directory for every test method: no test sees another's events. */
    PER_TEST,
    /**
     * One server and data directory for the whole class: tests share what earlier ones published (faster when
     * many tests read the same data; order the tests if they depend on each other).
     */
    PER_CLASS
}
