package dev.interlace.runtime.model;

import dev.interlace.annotations.Materialise;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * Loads SQL models: every {@code models/<name>.sql} resource on the class path (directories and jars). An optional
 * first line {@code -- interlace: materialise=view|table|incremental schema=main unique_key=<col>} configures it.
 */
public final class SqlModelFiles {

    static final String DIRECTORY = "models";
    private static final String HEADER = "-- interlace:";

    private SqlModelFiles() {}

    /** The models found by {@code classLoader}, ordered by name. */
    public static List<ModelDefinition> load(ClassLoader classLoader) {
        Map<String, String> sources = new TreeMap<>();
        try {
            Enumeration<URL> roots = classLoader.getResources(DIRECTORY);
            while (roots.hasMoreElements()) {
                URL root = roots.nextElement();
                if (root.getProtocol().equals("file")) {
                    try (Stream<Path> files = Files.list(Path.of(root.toURI()))) {
                        for (Path file : files.filter(f -> f.toString().endsWith(".sql")).toList()) {
                            put(sources, file.getFileName().toString(), Files.readString(file), file.toString());
                        }
                    }
                } else if (root.getProtocol().equals("jar")) {
                    JarURLConnection connection = (JarURLConnection) root.openConnection();
                    connection.setUseCaches(false);
                    try (JarFile jar = connection.getJarFile()) {
                        Enumeration<JarEntry> entries = jar.entries();
                        while (entries.hasMoreElements()) {
                            JarEntry entry = entries.nextElement();
                            String name = entry.getName();
                            if (name.startsWith(DIRECTORY + "/") && name.endsWith(".sql")
                                    && name.indexOf('/', DIRECTORY.length() + 1) < 0) {
                                try (InputStream in = jar.getInputStream(entry)) {
                                    put(sources, name.substring(DIRECTORY.length() + 1),
                                            new String(in.readAllBytes(), StandardCharsets.UTF_8),
                                            jar.getName() + "!/" + name);
                                }
                            }
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the SQL models on the class path", e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException("a class path URL is not a URI", e);
        }
        List<ModelDefinition> models = new ArrayList<>();
        sources.forEach((fileName, text) -> models.add(parse(fileName.substring(0, fileName.length() - 4), text,
                DIRECTORY + "/" + fileName)));
        return models;
    }

    private static void put(Map<String, String> sources, String fileName, String text, String location) {
        String previous = sources.putIfAbsent(fileName, text);
        if (previous != null && !previous.equals(text)) {
            throw new ModelException("two different model files are named " + fileName + " (one is " + location
                    + "); model names must be unique");
        }
    }

    /** Parses one model file. */
    static ModelDefinition parse(String name, String text, String source) {
        Materialise materialise = Materialise.TABLE;
        String schema = "main";
        String uniqueKey = null;
        String sql = text;
        String firstLine = text.lines().findFirst().orElse("").strip();
        if (firstLine.toLowerCase(Locale.ROOT).startsWith(HEADER)) {
            sql = text.substring(text.indexOf(firstLine) + firstLine.length());
            for (String setting : firstLine.substring(HEADER.length()).trim().split("\\s+")) {
                if (setting.isEmpty()) {
                    continue;
                }
                String[] pair = setting.split("=", 2);
                if (pair.length != 2 || pair[1].isEmpty()) {
                    throw new ModelException(source + ": \"" + setting + "\" in the header is not key=value");
                }
                switch (pair[0].toLowerCase(Locale.ROOT)) {
                    case "materialise", "materialize" -> {
                        try {
                            materialise = Materialise.valueOf(pair[1].toUpperCase(Locale.ROOT));
                        } catch (IllegalArgumentException e) {
                            throw new ModelException(source + ": materialise=" + pair[1]
                                    + " is not one of view, table, incremental");
                        }
                    }
                    case "schema" -> schema = pair[1];
                    case "unique_key" -> uniqueKey = pair[1];
                    default -> throw new ModelException(source + ": unknown header setting \"" + pair[0]
                            + "\"; use materialise, schema or unique_key");
                }
            }
        }
        sql = sql.strip();
        while (sql.endsWith(";")) {
            sql = sql.substring(0, sql.length() - 1).strip();
        }
        if (sql.isEmpty()) {
            throw new ModelException(source + ": the model has no SQL");
        }
        return ModelDefinition.sql(name, schema, materialise, uniqueKey, sql, source);
    }
}
