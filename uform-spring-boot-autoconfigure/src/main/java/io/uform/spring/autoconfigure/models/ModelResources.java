package io.uform.spring.autoconfigure.models;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import io.uform.onnxruntime.ModelSource;

/**
 * A model's files, from the Spring {@link Resource}s of its properties to uform's {@link ModelSource}s: a
 * file stays a file (ONNX Runtime maps it without a copy on the heap), anything else is read as a
 * stream. A missing one fails startup naming the property, the path tried and what exists beside it.
 */
final class ModelResources {

	/** The most neighbours a report lists. */
	private static final int NEARBY = 12;

	private ModelResources() {
	}

	/**
	 * The source of one of an entry's files.
	 * @param environment where the property's value as written is read, for the report
	 * @param name the entry's name
	 * @param field {@code model} or {@code tokenizer}
	 * @param resource the bound value
	 * @param opened streams opened here, for the caller to close once the model is loaded
	 * @return the source
	 * @throws InvalidConfigurationPropertyValueException where it is unset or does not exist
	 */
	static ModelSource source(Environment environment, String name, String field, @Nullable Resource resource,
			List<InputStream> opened) {
		String property = ModelEntries.property(name, field);
		if (resource == null) {
			// Boot's report prints the value: say it is unset rather than 'null'.
			throw new InvalidConfigurationPropertyValueException(property, "(unset)", "model '" + name + "' needs its "
					+ (field.equals("model") ? "ONNX file" : "tokenizer.json") + ": set it to a resource location such "
					+ "as 'classpath:/" + (field.equals("model") ? "model.onnx" : "tokenizer.json") + "' or 'file:/models/"
					+ (field.equals("model") ? "model.onnx" : "tokenizer.json") + "'");
		}
		String written = environment.getProperty(property, resource.getDescription());
		if (!resource.exists()) {
			if (resource instanceof ClassPathResource && !written.contains(":") && new File(written).isFile()) {
				// A bare path is a class-path location to Spring, though the user meant the file it names.
				throw new InvalidConfigurationPropertyValueException(property, written, "there is no "
						+ resource.getDescription() + ", since a location without a prefix is looked up on the class "
						+ "path; the file " + written + " exists: write it as 'file:" + written + "'");
			}
			throw new InvalidConfigurationPropertyValueException(property, written, "there is no " + resource.getDescription()
					+ ". " + nearby(resource) + ". Point it at the file ('file:' for the file system, 'classpath:' for "
					+ "the class path, e.g. a model jar)");
		}
		try {
			if (resource.isFile()) {
				return ModelSource.of(resource.getFile().toPath());
			}
			InputStream in = resource.getInputStream();
			opened.add(in);
			return ModelSource.of(in, resource.getDescription());
		}
		catch (IOException ex) {
			throw new InvalidConfigurationPropertyValueException(property, written, "could not open "
					+ resource.getDescription() + ": " + ex.getMessage());
		}
	}

	/** What exists beside a missing resource: the directory's files, or the class-path folder's resources. */
	static String nearby(Resource resource) {
		List<String> names = new ArrayList<>();
		String where;
		if (resource instanceof ClassPathResource classPath) {
			String path = classPath.getPath();
			String folder = (path.lastIndexOf('/') >= 0) ? path.substring(0, path.lastIndexOf('/') + 1) : "";
			where = "the class path" + (folder.isEmpty() ? "" : " folder " + folder);
			try {
				TreeSet<String> found = new TreeSet<>();
				for (Resource near : new PathMatchingResourcePatternResolver(classPath.getClassLoader())
					.getResources("classpath*:" + folder + "*")) {
					String file = near.getFilename();
					if (file != null && !file.isEmpty() && !file.endsWith(".class")) {
						found.add(folder + file);
					}
				}
				names.addAll(found);
			}
			catch (IOException ex) {
				return "Could not list " + where + ": " + ex.getMessage();
			}
		}
		else {
			File file;
			try {
				file = resource.getFile();
			}
			catch (IOException ex) {
				return "Nothing is listed beside a " + resource.getClass().getSimpleName();
			}
			File folder = file.getAbsoluteFile().getParentFile();
			where = "folder " + folder;
			String[] files = (folder != null) ? folder.list() : null;
			if (files == null) {
				return "Folder " + folder + " does not exist either";
			}
			Arrays.sort(files);
			names.addAll(Arrays.asList(files));
		}
		if (names.isEmpty()) {
			return "Nothing is in " + where;
		}
		List<String> shown = names.subList(0, Math.min(NEARBY, names.size()));
		return "In " + where + ": " + String.join(", ", shown)
				+ ((names.size() > shown.size()) ? " and " + (names.size() - shown.size()) + " more" : "");
	}
}
