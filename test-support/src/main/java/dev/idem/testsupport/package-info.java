/**
 * Test support shared by every module's tests and the benchmarks: a clock the test moves by
 * hand, free ports and temp directories, and one sub-package per embedded backend
 * ({@code postgres}, {@code mariadb}, {@code h2}, {@code jdbc} pools, {@code redis},
 * {@code dynamodb}, {@code kafka}). Each backend is started by one class, once per JVM where
 * tests share it ({@code shared()}) or as an {@link java.lang.AutoCloseable} of the caller's own,
 * always on free loopback ports, with bounded waits. The backend libraries are optional
 * dependencies of this artifact: declare the ones whose package you use.
 */
package dev.idem.testsupport;
