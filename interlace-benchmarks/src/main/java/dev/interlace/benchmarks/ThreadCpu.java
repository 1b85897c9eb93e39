package dev.interlace.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** CPU time per thread name (summed over threads of the same name pattern) from {@code /proc/self/task}. */
final class ThreadCpu {
    final Map<String, Long> ticks;
    final long wallNanos;

    ThreadCpu(Map<String, Long> ticks, long wallNanos) {
        this.ticks = ticks;
        this.wallNanos = wallNanos;
    }

    static ThreadCpu now() {
        Map<String, Long> ticks = new java.util.HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    int close = stat.lastIndexOf(')');
                    String name = stat.substring(stat.indexOf('(') + 1, close).replaceAll("[-#]?\\d+$", "")
                            .replaceAll("\\d+$", "");
                    String[] fields = stat.substring(close + 2).split(" ");
                    long used = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime + stime
                    ticks.merge(task.getFileName() + "\u0000" + name, used, Long::sum);
                } catch (IOException | RuntimeException e) {
                    // thread ended meanwhile
                }
            }
        } catch (IOException e) {
            return new ThreadCpu(Map.of(), System.nanoTime());
        }
        return new ThreadCpu(ticks, System.nanoTime());
    }

    /** "name cores, ..." for the busiest thread groups between {@code start} and this. */
    String since(ThreadCpu start) {
        ThreadCpu end = now();
        double seconds = (end.wallNanos - start.wallNanos) / 1e9;
        Map<String, Double> byName = new java.util.HashMap<>();
        for (Map.Entry<String, Long> entry : end.ticks.entrySet()) {
            long before = start.ticks.getOrDefault(entry.getKey(), 0L);
            String name = entry.getKey().substring(entry.getKey().indexOf('\u0000') + 1);
            byName.merge(name, (entry.getValue() - before) / 100.0 / seconds, Double::sum);
        }
        return byName.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .filter(e -> e.getValue() >= 0.01).limit(12)
                .map(e -> String.format(Locale.ROOT, "%s %.2f", e.getKey(), e.getValue()))
                .collect(Collectors.joining(", "));
    }
}
