package io.uform.sample.passages;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/**
 * Reads the passages of a corpus: every {@code .md} and {@code .txt} file under a directory, or, with
 * no directory given, the project's docs pages that the build bundles into the jar under
 * {@value #BUNDLED}. Files are read in path order, so every instance indexes the same passages in the
 * same order.
 */
public final class DocumentSource {

	/** Where the build copies the project's docs pages inside the jar. */
	public static final String BUNDLED = "sample-docs";

	private DocumentSource() {
	}

	/**
	 * Reads and splits every document.
	 * @param directory where the documents are; {@code null} for the bundled docs
	 * @return the passages, file by file in path order
	 * @throws UnusableCorpusException when the directory is missing, or holds no document or no passage
	 */
	public static List<Passage> passages(@Nullable Path directory) {
		List<Passage> passages = new ArrayList<>();
		int files = (directory != null) ? readDirectory(directory, passages) : readBundled(passages);
		String where = "sample.corpus.path " + ((directory != null) ? "'" + directory + "'" : "(unset: the bundled docs)");
		if (files == 0) {
			throw new UnusableCorpusException(where + " holds no .md or .txt file; point it at a directory of documents");
		}
		if (passages.isEmpty()) {
			throw new UnusableCorpusException(where + " holds " + files + " documents but no passage of prose (fenced "
					+ "code is left out); point it at documents with sentences to search");
		}
		return passages;
	}

	private static int readDirectory(Path directory, List<Passage> into) {
		if (!Files.isDirectory(directory)) {
			throw new UnusableCorpusException("sample.corpus.path '" + directory + "' is not a directory"
					+ (Files.exists(directory) ? "" : " (it does not exist)") + "; give a directory of .md or .txt files");
		}
		List<Path> documents;
		try (Stream<Path> walk = Files.walk(directory)) {
			documents = walk.filter(Files::isRegularFile).filter((path) -> isDocument(path.toString()))
				.sorted(Comparator.comparing((Path path) -> relative(directory, path)))
				.toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("could not list sample.corpus.path '" + directory + "'", ex);
		}
		for (Path document : documents) {
			try {
				into.addAll(PassageSplitter.split(relative(directory, document), Files.readString(document, StandardCharsets.UTF_8)));
			}
			catch (IOException ex) {
				throw new UncheckedIOException("could not read " + document + " (under sample.corpus.path)", ex);
			}
		}
		return documents.size();
	}

	private static int readBundled(List<Passage> into) {
		List<Resource> documents = new ArrayList<>();
		try {
			PathMatchingResourcePatternResolver resolver = new PathMatchingResourcePatternResolver(
					DocumentSource.class.getClassLoader());
			for (Resource resource : resolver.getResources("classpath*:" + BUNDLED + "/**/*")) {
				if (resource.isReadable() && isDocument(String.valueOf(resource.getFilename()))) {
					documents.add(resource);
				}
			}
			documents.sort(Comparator.comparing(DocumentSource::bundledName));
			for (Resource document : documents) {
				into.addAll(PassageSplitter.split(bundledName(document), document.getContentAsString(StandardCharsets.UTF_8)));
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("could not read the bundled docs (" + BUNDLED + "/ in the jar)", ex);
		}
		return documents.size();
	}

	private static String bundledName(Resource resource) {
		try {
			String url = resource.getURL().toString();
			return url.substring(url.lastIndexOf(BUNDLED + "/") + BUNDLED.length() + 1);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String relative(Path directory, Path file) {
		return directory.relativize(file).toString().replace('\\', '/');
	}

	private static boolean isDocument(String name) {
		String lower = name.toLowerCase(Locale.ROOT);
		return lower.endsWith(".md") || lower.endsWith(".txt");
	}
}
