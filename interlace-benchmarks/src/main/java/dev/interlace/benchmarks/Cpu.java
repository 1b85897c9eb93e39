package dev.interlace.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU used during a measurement: by this JVM (server and load generator) and by everything else on the machine
 * (from /proc/stat), in cores. "Other" well above zero means the run was disturbed.
 */
record Cpu(long processNanos, long busyTicks, long wallNanos) {
    static Cpu now() {
        long process = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        long busy = -1;
        try {
            String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            busy = 0;
            // user nice system idle iowait irq softirq steal: everything but idle and iowait is busy.
            for (int i = 1; i <= 8 && i < fields.length; i++) {
                if (i != 4 && i != 5) {
                    busy += Long.parseLong(fields[i]);
                }
            }
        } catch (IOException | RuntimeException e) {
            busy = -1;
        }
        return new Cpu(process, busy, System.nanoTime());
    }

    /** {benchCores, otherCores} between {@code start} and this. */
    double[] since(Cpu start) {
        double seconds = (wallNanos - start.wallNanos) / 1e9;
        double bench = (processNanos - start.processNanos) / 1e9 / seconds;
        if (busyTicks < 0 || start.busyTicks < 0) {
            return new double[] {bench, Double.NaN};
        }
        double machine = (busyTicks - start.busyTicks) / 100.0 / seconds; // USER_HZ = 100
        return new double[] {bench, Math.max(0, machine - bench)};
    }
}
