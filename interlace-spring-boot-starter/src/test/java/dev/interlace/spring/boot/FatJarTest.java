package dev.interlace.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The application packaged as Spring Boot's executable jar (the layout {@code spring-boot-maven-plugin repackage}
 * writes: Boot's launcher at the root, the application's classes under {@code BOOT-INF/classes/}, every dependency a
 * jar stored under {@code BOOT-INF/lib/}), run with {@code java -jar}: the SQL models under {@code models/} in the
 * application's classes and in a dependency's jar are both found, although no file on the JVM's class path holds
 * them.
 */
class FatJarTest {

    @TempDir
    Path temp;

    @Test
    void sqlModelsInsideTheExecutableJarsNestedJarsAreFound() throws Exception {
        Path jar = temp.resolve("shop.jar");
        buildExecutableJar(jar);
        Path dataDir = temp.resolve("data");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                jar.toString(), "--interlace.port=0", "--interlace.data-dir=" + dataDir)
                .redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(120, TimeUnit.SECONDS)).as(output).isTrue();
        assertThat(child.exitValue()).as(output).isZero();
        assertThat(output).contains("models: [shop_big_orders, shop_order_totals]");
    }

    /** Writes the executable jar from this test's class path. */
    private void buildExecutableJar(Path target) throws IOException {
        Path testClasses = Path.of("target", "test-classes").toAbsolutePath();
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.put(Attributes.Name.MAIN_CLASS, "org.springframework.boot.loader.launch.JarLauncher");
        main.putValue("Start-Class", "dev.interlace.spring.boot.shop.FatJarMain");
        main.putValue("Spring-Boot-Classes", "BOOT-INF/classes/");
        main.putValue("Spring-Boot-Lib", "BOOT-INF/lib/");
        Set<String> names = new HashSet<>();
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(target), manifest)) {
            for (String entry : classPath.split(File.pathSeparator)) {
                Path path = Path.of(entry).toAbsolutePath();
                if (path.equals(testClasses)) {
                    addDirectory(out, path, "BOOT-INF/classes/");
                } else if (path.getFileName().toString().startsWith("spring-boot-loader-")) {
                    addLauncher(out, path);
                } else if (Files.isDirectory(path)) {
                    // A module of this build (the starter, the runtime): a jar of it, as a dependency would be.
                    Path moduleJar = temp.resolve(path.getParent().getParent().getFileName() + "-"
                            + path.getFileName() + ".jar");
                    try (JarOutputStream module = new JarOutputStream(Files.newOutputStream(moduleJar))) {
                        addDirectory(module, path, "");
                    }
                    addStored(out, "BOOT-INF/lib/" + unique(names, moduleJar.getFileName().toString()),
                            Files.readAllBytes(moduleJar));
                } else if (Files.isRegularFile(path)) {
                    addStored(out, "BOOT-INF/lib/" + unique(names, path.getFileName().toString()),
                            Files.readAllBytes(path));
                }
            }
            addStored(out, "BOOT-INF/lib/shop-models.jar", modelsJar());
        }
    }

    /** A dependency holding one more SQL model. */
    private static byte[] modelsJar() throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(bytes)) {
            jar.putNextEntry(new JarEntry("models/"));
            jar.closeEntry();
            jar.putNextEntry(new JarEntry("models/shop_big_orders.sql"));
            jar.write("SELECT order_id FROM streams.shop_orders WHERE total > 100\n".getBytes(StandardCharsets.UTF_8));
            jar.closeEntry();
        }
        return bytes.toByteArray();
    }

    private static String unique(Set<String> names, String name) {
        String candidate = name;
        for (int i = 2; !names.add(candidate); i++) {
            candidate = i + "-" + name;
        }
        return candidate;
    }

    private static void addDirectory(JarOutputStream out, Path root, String prefix) throws IOException {
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(root)) {
            paths = walk.sorted().toList();
        }
        for (Path path : paths) {
            String name = prefix + root.relativize(path).toString().replace(File.separatorChar, '/');
            if (Files.isDirectory(path)) {
                if (!name.isEmpty()) {
                    out.putNextEntry(new JarEntry(name.endsWith("/") ? name : name + "/"));
                    out.closeEntry();
                }
            } else if (!name.equals("META-INF/MANIFEST.MF")) {
                out.putNextEntry(new JarEntry(name));
                Files.copy(path, out);
                out.closeEntry();
            }
        }
    }

    /** Boot's launcher classes at the jar's root, as repackage puts them. */
    private static void addLauncher(JarOutputStream out, Path loaderJar) throws IOException {
        try (JarFile loader = new JarFile(loaderJar.toFile())) {
            Enumeration<JarEntry> entries = loader.entries();
            while (entries.hasMoreElements()) {
                JarEntry entry = entries.nextElement();
                if (entry.getName().startsWith("org/")) {
                    out.putNextEntry(new JarEntry(entry.getName()));
                    try (InputStream in = loader.getInputStream(entry)) {
                        in.transferTo(out);
                    }
                    out.closeEntry();
                }
            }
        }
    }

    /** Nested jars are stored, not deflated: Boot's launcher reads them in place. */
    private static void addStored(JarOutputStream out, String name, byte[] content) throws IOException {
        JarEntry entry = new JarEntry(name);
        entry.setMethod(ZipEntry.STORED);
        entry.setSize(content.length);
        entry.setCompressedSize(content.length);
        CRC32 crc = new CRC32();
        crc.update(content);
        entry.setCrc(crc.getValue());
        out.putNextEntry(entry);
        out.write(content);
        out.closeEntry();
    }
}
