package io.uform.onnxruntime;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where a model file or a tokenizer comes from: a file, a class-path resource, or a stream. Read once,
 * when the model is loaded.
 */
public final class ModelSource {

	private final String description;

	private final Path path;

	private final Opener opener;

	private ModelSource(String description, Path path, Opener opener) {
		this.description = description;
		this.path = path;
		this.opener = opener;
	}

	/**
	 * A file.
	 * @param path the file, e.g. {@code model.onnx} or {@code tokenizer.json}
	 * @return the source
	 */
	public static ModelSource of(Path path) {
		Objects.requireNonNull(path, "path");
		return new ModelSource("file " + path, path, () -> Files.newInputStream(path));
	}

	/**
	 * A class-path resource, found by this library's class loader (or the thread's context class loader
	 * where that one has it), e.g. inside a model jar.
	 * @param name the resource's name, with or without a leading {@code /}
	 * @return the source
	 */
	public static ModelSource classPath(String name) {
		Objects.requireNonNull(name, "name");
		String resource = name.startsWith("/") ? name.substring(1) : name;
		return new ModelSource("class-path resource " + resource, null, () -> {
			InputStream in = ModelSource.class.getClassLoader().getResourceAsStream(resource);
			ClassLoader context = Thread.currentThread().getContextClassLoader();
			if (in == null && context != null) {
				in = context.getResourceAsStream(resource);
			}
			if (in == null) {
				throw new IOException("no class-path resource " + resource + ": add the jar that holds it to the "
						+ "class path, or load the file with ModelSource.of(Path)");
			}
			return in;
		});
	}

	/**
	 * A stream, read to its end when the model is loaded; the caller closes it.
	 * @param in the stream
	 * @param name what it holds, for messages, e.g. {@code model.onnx from S3}
	 * @return the source; it can be read once
	 */
	public static ModelSource of(InputStream in, String name) {
		Objects.requireNonNull(in, "in");
		Objects.requireNonNull(name, "name");
		return new ModelSource(name, null, () -> new UnclosedStream(in));
	}

	/**
	 * The file, where this source is one: ONNX Runtime then reads it without a copy on the Java heap.
	 * @return the file, or {@code null}
	 */
	Path path() {
		return this.path;
	}

	/**
	 * Reads it whole.
	 * @return the bytes
	 * @throws UncheckedIOException naming this source when it cannot be read
	 */
	byte[] bytes() {
		try (InputStream in = open()) {
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("could not read " + this.description + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * Opens it.
	 * @return a stream to close
	 * @throws IOException when it cannot be opened
	 */
	InputStream open() throws IOException {
		return this.opener.open();
	}

	@Override
	public String toString() {
		return this.description;
	}

	@FunctionalInterface
	private interface Opener {

		InputStream open() throws IOException;
	}

	/** A caller's stream: reading through it is ours, closing it is the caller's. */
	private static final class UnclosedStream extends FilterInputStream {

		UnclosedStream(InputStream in) {
			super(in);
		}

		@Override
		public void close() {
		}
	}
}
