package dev.interlace.log.kafka.testing;

import dev.interlace.runtime.testing.Eventually;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * A real Apache Kafka cluster for tests: KRaft nodes in child JVMs started from the {@code kafka_2.13} jars on the
 * test class path ({@code kafka.tools.StorageTool format}, then {@code kafka.Kafka server.properties}), listening on
 * free loopback ports, with their data in a temporary directory.
 *
 * <p>One broker is a broker and the controller in one JVM. Several brokers get a controller of their own, in a JVM
 * of its own, so that killing brokers never takes the metadata quorum with them: with two of three brokers dead the
 * survivor is still told that the others are gone (after {@code broker.session.timeout.ms}, 9 s by default) and
 * shrinks its partitions' in-sync replicas, which is what {@code min.insync.replicas} is about. Their topics and the
 * internal ones get three replicas and {@code min.insync.replicas=2}, as in production.
 *
 * <p>Settings are otherwise those of a development cluster made for quick tests: the classic group protocol with short
 * session timeouts and {@code group.initial.rebalance.delay.ms=0}, one partition for the internal topics, topics never
 * created automatically. Every child is destroyed and the directory deleted by {@link #close}, and by a shutdown
 * hook when the test JVM exits first (also on an exception or {@code System.exit}; only a SIGKILL of the test JVM
 * itself leaves children behind).
 *
 * <p>Most tests share one single-node cluster per test JVM ({@link #shared()}): a node takes about ten seconds to
 * start on two cores.
 */
public final class KafkaCluster implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    /** The nodes' JVM options for tests: a small heap and no C2 compiler, the quickest start on two cores. */
    private static final List<String> TEST_JVM_OPTIONS = List.of("-Xmx512m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1");
    /** The controller's, which holds only the cluster's metadata. */
    private static final List<String> CONTROLLER_JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1");
    private static final int CONTROLLER_ID = 100;
    private static KafkaCluster shared;

    private final Path directory;
    private final List<String> jvmOptions;
    private final List<Node> nodes = new ArrayList<>();
    /** The controller of a cluster of several brokers; null for one broker, which is its own controller. */
    private Node controller;
    /**
     * How many extra listeners each broker has, {@code CUT0}, {@code CUT1}...: each listens on a port of its own and
     * advertises another one (a {@link BlackholeProxy}'s, see {@link #startWithCutListeners}); none without them.
     */
    private int cutListeners;
    /** Broker settings written over the harness's own (a benchmark's comparison of broker configurations). */
    private Map<String, String> brokerSettings = Map.of();
    private final Thread cleanup;
    private volatile boolean closed;

    /** One node of the cluster: its child process, ports and files. */
    public static final class Node {
        final int id;
        final int port;
        final int controllerPort;
        final Path directory;
        /** Per cut listener {@code CUT<i>}: the port it listens on and the port it advertises. */
        final List<int[]> cut = new ArrayList<>();
        Process process;

        Node(int id, int port, int controllerPort, Path directory) {
            this.id = id;
            this.port = port;
            this.controllerPort = controllerPort;
            this.directory = directory;
        }

        public int id() {
            return id;
        }

        public boolean alive() {
            return process != null && process.isAlive();
        }
    }

    private KafkaCluster(Path directory, List<String> jvmOptions) {
        this.directory = directory;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.cleanup = new Thread(this::destroy, "kafka-cluster-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
    }

    /** The single-node cluster shared by every test of this JVM, started on first use, stopped when the JVM exits. */
    public static synchronized KafkaCluster shared() {
        if (shared == null || shared.closed) {
            shared = start(1);
        }
        return shared;
    }

    /**
     * Starts a cluster of {@code size} brokers and waits until all are up: one node that is also the controller, or
     * several and a controller of their own.
     */
    public static KafkaCluster start(int size) {
        return start(size, TEST_JVM_OPTIONS);
    }

    /**
     * Starts a cluster of {@code size} nodes whose JVMs run with {@code jvmOptions} instead of the tests' quick-start
     * options: the benchmark runs its broker as production does (a larger heap, G1, the C2 compiler).
     */
    public static KafkaCluster start(int size, List<String> jvmOptions) {
        return start(size, jvmOptions, Map.of());
    }

    /** As {@link #start(int, List)}, each broker's {@code server.properties} given {@code brokerSettings} too. */
    public static KafkaCluster start(int size, List<String> jvmOptions, Map<String, String> brokerSettings) {
        return launched(size, jvmOptions, 0, brokerSettings);
    }

    /**
     * Starts one broker with {@code count} extra listeners, {@code CUT0}, {@code CUT1}..., each advertising another
     * port than its own: a client bootstrapped on {@link #cutBootstrap cutBootstrap(i)} reaches the broker only
     * through whatever listens there (a {@link BlackholeProxy} to {@link #cutListener cutListener(i)}, which a test
     * cuts), while clients of {@link #bootstrap} reach it directly.
     */
    public static KafkaCluster startWithCutListeners(int count) {
        return launched(1, TEST_JVM_OPTIONS, count, Map.of());
    }

    /**
     * Starts {@code size} brokers (and their controller), each with {@code count} cut listeners: a client bootstrapped
     * on {@link #cutBootstrap cutBootstrap(i)} reaches every broker only through the proxies of {@link #cutOff
     * cutOff(i)}, which a test cuts to cut that client off from the whole cluster.
     */
    public static KafkaCluster startWithCutListeners(int size, int count) {
        return launched(size, TEST_JVM_OPTIONS, count, Map.of());
    }

    /** A cluster of {@code size} nodes running with {@code jvmOptions}, with {@code cutListeners} cut listeners. */
    private static KafkaCluster launched(int size, List<String> jvmOptions, int cutListeners,
            Map<String, String> brokerSettings) {
        try {
            KafkaCluster cluster = new KafkaCluster(Files.createTempDirectory("interlace-kafka-"), jvmOptions);
            try {
                cluster.cutListeners = cutListeners;
                cluster.brokerSettings = Map.copyOf(brokerSettings);
                cluster.launch(size);
                return cluster;
            } catch (RuntimeException | IOException | InterruptedException e) {
                cluster.close();
                throw e;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a Kafka cluster: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting a Kafka cluster", e);
        }
    }

    /** Where the (first) broker's listener {@code CUT<i>} really listens: its proxy's target. */
    public java.net.InetSocketAddress cutListener(int i) {
        return new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), nodes.get(0).cut.get(i)[0]);
    }

    /** The port the (first) broker's listener {@code CUT<i>} advertises: its proxy listens there. */
    public int cutAdvertisedPort(int i) {
        return nodes.get(0).cut.get(i)[1];
    }

    /**
     * {@code bootstrap.servers} of a client that reaches the brokers only through the proxies of {@code CUT<i>}
     * (every broker's).
     */
    public String cutBootstrap(int i) {
        return nodes.stream().map(node -> "127.0.0.1:" + node.cut.get(i)[1]).collect(Collectors.joining(","));
    }

    /**
     * Opens a {@link BlackholeProxy} in front of every broker's listener {@code CUT<i>}: a client bootstrapped on
     * {@link #cutBootstrap cutBootstrap(i)} reaches the cluster through them only, and {@link CutOff#cut} cuts it off
     * from every broker at once. The caller closes it.
     */
    public CutOff cutOff(int i) {
        return new CutOff(nodes.stream().map(node -> new BlackholeProxy(node.cut.get(i)[1],
                new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), node.cut.get(i)[0]))).toList());
    }

    /** {@code HOST:PORT,...} of every node, for {@code bootstrap.servers}. */
    public String bootstrap() {
        return nodes.stream().map(node -> "127.0.0.1:" + node.port).collect(Collectors.joining(","));
    }

    /** The brokers (the controller of several brokers is not among them). */
    public List<Node> nodes() {
        return List.copyOf(nodes);
    }

    /** An admin client on this cluster; the caller closes it. */
    public Admin admin() {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        return Admin.create(properties);
    }

    /** Kills {@code node} at once (SIGKILL), as a crashed machine would stop. */
    public void kill(Node node) throws InterruptedException {
        node.process.destroyForcibly();
        node.process.waitFor(30, TimeUnit.SECONDS);
    }

    /**
     * Freezes {@code node} (SIGSTOP): its sockets stay open and nothing answers, as a network that drops every packet
     * between the clients and the broker would look to them; {@link #resume} lets it go on.
     */
    public void suspend(Node node) throws IOException, InterruptedException {
        signal(node, "STOP");
    }

    /** Lets a {@linkplain #suspend suspended} node go on (SIGCONT). */
    public void resume(Node node) throws IOException, InterruptedException {
        signal(node, "CONT");
    }

    private static void signal(Node node, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(node.process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + node.process.pid() + " failed");
        }
    }

    /**
     * Starts {@code brokers} again on their old ports and data, after {@link #kill}, all at once, and waits until
     * each answers.
     */
    public void restart(Node... brokers) throws IOException, InterruptedException {
        for (Node node : brokers) {
            node.process = startNode(node);
        }
        for (Node node : brokers) {
            awaitUp(node);
        }
    }

    /** The broker leading {@code partition} now, if one does. */
    public Optional<Node> leaderOf(TopicPartition partition) throws InterruptedException {
        try (Admin admin = admin()) {
            TopicDescription topic = admin.describeTopics(List.of(partition.topic())).allTopicNames()
                    .get(20, TimeUnit.SECONDS).get(partition.topic());
            org.apache.kafka.common.Node leader = topic.partitions().get(partition.partition()).leader();
            return leader == null ? Optional.empty()
                    : nodes.stream().filter(node -> node.id == leader.id()).findFirst();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot describe " + partition.topic() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Waits until every partition of every topic has all its replicas in sync (after a restart, the restarted broker
     * has caught up), so that what a test does next starts from a whole cluster.
     */
    public void awaitInSync() throws InterruptedException {
        try (Admin admin = admin()) {
            await("the replicas of the Kafka cluster are in sync", null, () -> {
                Set<String> names = admin.listTopics(new ListTopicsOptions().listInternal(true)).names()
                        .get(20, TimeUnit.SECONDS);
                return admin.describeTopics(names).allTopicNames().get(20, TimeUnit.SECONDS).values()
                        .stream().flatMap(topic -> topic.partitions().stream())
                        .allMatch(partition -> partition.isr().size() == partition.replicas().size());
            });
        }
    }

    @Override
    public void close() {
        destroy();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running or will run: it does the same.
        }
    }

    private synchronized void destroy() {
        if (closed) {
            return;
        }
        closed = true;
        List<Node> all = allNodes();
        for (Node node : all) {
            if (node.process != null) {
                node.process.destroyForcibly();
            }
        }
        for (Node node : all) {
            if (node.process != null) {
                try {
                    node.process.waitFor(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        deleteTree(directory);
    }

    /** The brokers and the controller of their own, if any. */
    private List<Node> allNodes() {
        List<Node> all = new ArrayList<>(nodes);
        if (controller != null) {
            all.add(controller);
        }
        return all;
    }

    private void launch(int size) throws IOException, InterruptedException {
        for (int id = 1; id <= size; id++) {
            Node node = new Node(id, freePort(), freePort(), Files.createDirectories(directory.resolve("node-" + id)));
            for (int i = 0; i < cutListeners; i++) {
                node.cut.add(new int[] {freePort(), freePort()});
            }
            nodes.add(node);
        }
        Node voter = nodes.get(0);
        if (size > 1) {
            controller = new Node(CONTROLLER_ID, 0, freePort(),
                    Files.createDirectories(directory.resolve("controller")));
            voter = controller;
        }
        String clusterId = Uuid.randomUuid().toString();
        String voters = voter.id + "@127.0.0.1:" + voter.controllerPort;
        List<Process> formats = new ArrayList<>();
        List<Node> all = allNodes();
        for (Node node : all) {
            writeProperties(node, voters, size);
            formats.add(java(node, "format", "kafka.tools.StorageTool", "format", "--ignore-formatted",
                    "--cluster-id", clusterId, "--config", node.directory.resolve("server.properties").toString()));
        }
        for (int i = 0; i < formats.size(); i++) {
            Process format = formats.get(i);
            if (!format.waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS) || format.exitValue() != 0) {
                format.destroyForcibly();
                throw new IllegalStateException("formatting the storage of Kafka node " + all.get(i).id
                        + " failed:\n" + tail(all.get(i).directory.resolve("format.log")));
            }
        }
        for (Node node : all) {
            node.process = startNode(node);
        }
        awaitUp(size);
    }

    private Process startNode(Node node) throws IOException {
        return java(node, "server", "kafka.Kafka", node.directory.resolve("server.properties").toString());
    }

    private void writeProperties(Node node, String voters, int size) throws IOException {
        int replicas = Math.min(size, 3);
        int minInsync = replicas > 1 ? 2 : 1;
        Properties properties = new Properties();
        properties.put("node.id", Integer.toString(node.id));
        properties.put("controller.quorum.voters", voters);
        properties.put("controller.listener.names", "CONTROLLER");
        if (node == controller) {
            properties.put("process.roles", "controller");
            properties.put("listeners", "CONTROLLER://127.0.0.1:" + node.controllerPort);
        } else {
            properties.put("process.roles", controller != null ? "broker" : "broker,controller");
            StringBuilder listeners = new StringBuilder("PLAINTEXT://127.0.0.1:" + node.port
                    + (controller != null ? "" : ",CONTROLLER://127.0.0.1:" + node.controllerPort));
            StringBuilder advertised = new StringBuilder("PLAINTEXT://127.0.0.1:" + node.port);
            for (int i = 0; i < node.cut.size(); i++) {
                listeners.append(",CUT").append(i).append("://127.0.0.1:").append(node.cut.get(i)[0]);
                advertised.append(",CUT").append(i).append("://127.0.0.1:").append(node.cut.get(i)[1]);
            }
            properties.put("listeners", listeners.toString());
            properties.put("advertised.listeners", advertised.toString());
        }
        properties.put("inter.broker.listener.name", "PLAINTEXT");
        StringBuilder protocols = new StringBuilder("PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        for (int i = 0; i < cutListeners; i++) {
            protocols.append(",CUT").append(i).append(":PLAINTEXT");
        }
        properties.put("listener.security.protocol.map", protocols.toString());
        properties.put("log.dirs", node.directory.resolve("data").toString());
        properties.put("auto.create.topics.enable", "false");
        properties.put("num.partitions", "1");
        properties.put("offsets.topic.num.partitions", "1");
        properties.put("offsets.topic.replication.factor", Integer.toString(replicas));
        properties.put("transaction.state.log.num.partitions", "1");
        properties.put("transaction.state.log.replication.factor", Integer.toString(replicas));
        properties.put("transaction.state.log.min.isr", Integer.toString(minInsync));
        properties.put("default.replication.factor", Integer.toString(replicas));
        properties.put("min.insync.replicas", Integer.toString(minInsync));
        properties.put("group.initial.rebalance.delay.ms", "0");
        properties.put("group.min.session.timeout.ms", "1000");
        properties.put("group.coordinator.rebalance.protocols", "classic");
        properties.put("log.segment.bytes", Integer.toString(16 * 1024 * 1024));
        properties.put("log.cleaner.dedupe.buffer.size", Integer.toString(2 * 1024 * 1024));
        properties.put("log.cleaner.backoff.ms", "1000");
        properties.put("num.io.threads", "2");
        properties.put("num.network.threads", "2");
        properties.put("num.recovery.threads.per.data.dir", "1");
        properties.put("background.threads", "2");
        if (node != controller) {
            properties.putAll(brokerSettings);
        }
        try (var out = Files.newBufferedWriter(node.directory.resolve("server.properties"), StandardCharsets.UTF_8)) {
            properties.store(out, "written by KafkaCluster for a test");
        }
    }

    /** A child JVM running {@code main} on the test's jars, its output in {@code <node>/<name>.log}. */
    private Process java(Node node, String name, String main, String... arguments) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(node == controller ? CONTROLLER_JVM_OPTIONS : jvmOptions);
        command.addAll(List.of("-Xshare:auto", "-Djava.awt.headless=true", "-Djava.io.tmpdir=" + node.directory,
                "-cp", brokerClassPath(), main));
        command.addAll(List.of(arguments));
        Path log = node.directory.resolve(name + ".log");
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    /**
     * The jars of the test class path (the broker and everything it needs, resolved by Maven as test dependencies);
     * build output directories are left out, they are not the broker's and may change under a running child.
     */
    private static String brokerClassPath() {
        return Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> entry.endsWith(".jar") && !entry.contains("surefire"))
                .collect(Collectors.joining(File.pathSeparator));
    }

    /** Waits until {@code node} answers a client that knows only it. */
    private void awaitUp(Node node) throws InterruptedException {
        awaitListening(List.of(node));
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + node.port);
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        try (Admin admin = Admin.create(properties)) {
            await("Kafka node " + node.id + " comes back", node.directory.resolve("server.log"), () -> {
                if (!node.process.isAlive()) {
                    throw new IllegalStateException("Kafka node " + node.id + " exited with "
                            + node.process.exitValue() + ":\n" + tail(node.directory.resolve("server.log")));
                }
                return admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).stream()
                        .anyMatch(member -> member.id() == node.id);
            });
        }
    }

    private void awaitUp(int size) throws InterruptedException {
        awaitListening(nodes);
        try (Admin admin = admin()) {
            await("the Kafka cluster comes up", nodes.get(0).directory.resolve("server.log"), () -> {
                for (Node node : allNodes()) {
                    if (node.process != null && !node.process.isAlive()) {
                        throw new IllegalStateException("Kafka node " + node.id + " exited with "
                                + node.process.exitValue() + ":\n" + tail(node.directory.resolve("server.log")));
                    }
                }
                return admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size() >= size;
            });
        }
    }

    /**
     * Waits until every broker of {@code brokers} accepts connections on its port. Why: an admin client whose
     * bootstrap servers all refuse connections re-bootstraps in a tight loop (hundreds of log lines a second), which
     * takes a core from the brokers it waits for on a two-core machine; so no admin client is made before they listen.
     */
    private static void awaitListening(List<Node> brokers) {
        for (Node node : brokers) {
            await("Kafka node " + node.id + " listens", node.directory.resolve("server.log"), () -> {
                if (!node.process.isAlive()) {
                    throw new IllegalStateException("Kafka node " + node.id + " exited with "
                            + node.process.exitValue() + ":\n" + tail(node.directory.resolve("server.log")));
                }
                try (java.net.Socket socket = new java.net.Socket()) {
                    socket.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), node.port), 1_000);
                    return true;
                } catch (IOException refused) {
                    return false;
                }
            });
        }
    }

    /**
     * Waits up to {@link #START_TIMEOUT} until {@code condition} holds, a broker that does not answer yet counting as
     * "not yet"; past the deadline fails with the tail of {@code log} (when given).
     */
    private static void await(String what, Path log, Eventually.Condition condition) {
        try {
            Eventually.until(what, START_TIMEOUT, () -> {
                try {
                    return condition.holds();
                } catch (ExecutionException | TimeoutException e) {
                    return false; // a broker is still on its way
                }
            });
        } catch (AssertionError e) {
            throw new IllegalStateException(e.getMessage() + (log == null ? "" : ":\n" + tail(log)), e);
        }
    }

    private static final int PORTS_FROM = 12_000;
    private static final int PORTS_TO = 32_000;
    /** The port {@link #freePort} tries next: below Linux's ephemeral range, from a random start per JVM. */
    private static final java.util.concurrent.atomic.AtomicInteger NEXT_PORT = new java.util.concurrent.atomic
            .AtomicInteger(java.util.concurrent.ThreadLocalRandom.current().nextInt(PORTS_FROM, PORTS_TO));

    /**
     * A port free now, below the range the kernel hands to outgoing connections (32768 and up by default): a broker
     * binds its ports seconds later, and again after each restart, and a port the kernel chose for a connection
     * meanwhile made a broker exit with "Address already in use". Ports are handed out in turn, each at most once per
     * lap, so that the clusters of one JVM do not share one.
     */
    private static int freePort() throws IOException {
        for (int tries = 0; tries < PORTS_TO - PORTS_FROM; tries++) {
            int port = PORTS_FROM + Math.floorMod(NEXT_PORT.getAndIncrement() - PORTS_FROM, PORTS_TO - PORTS_FROM);
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return socket.getLocalPort();
            } catch (IOException taken) {
                // in use: the next one
            }
        }
        throw new IOException("no free port between " + PORTS_FROM + " and " + PORTS_TO);
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // Best effort: a temporary directory.
        }
    }
}
