package io.uform.bench.embedding;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

/**
 * uform-onnxruntime from another build, side by side with this one in the same JVM: its
 * {@code io.uform.onnxruntime} classes are loaded from a jar ({@code -Duform.before.jar}), child-first,
 * and everything else (uform-java, ONNX Runtime, DJL) is shared with the run. A change to the model
 * is measured against the code before it in the same rounds. Called through reflection, as its classes
 * are not this build's.
 */
final class UformJarPeer implements Peer {

	private static final String PACKAGE = "io.uform.onnxruntime.";

	private final Executor executor;

	private final AutoCloseable model;

	private final Method embedAll;

	private final Method embed;

	UformJarPeer(Path jar, int threads) throws Exception {
		ClassLoader loader = new ChildFirst(jar.toUri().toURL(), UformJarPeer.class.getClassLoader());
		Class<?> source = loader.loadClass(PACKAGE + "ModelSource");
		Class<?> options = loader.loadClass(PACKAGE + "TextEmbeddingOptions");
		Class<?> modelClass = loader.loadClass(PACKAGE + "TextEmbeddingModel");
		Method classPath = source.getMethod("classPath", String.class);
		Object defaults = options.getMethod("defaults").invoke(null);
		defaults = options.getMethod("withName", String.class).invoke(defaults, "all-minilm-l6-v2-q");
		this.executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(threads));
		this.model = (AutoCloseable) modelClass.getMethod("load", Executor.class, source, source, options)
			.invoke(null, this.executor, classPath.invoke(null, ModelFiles.MODEL), classPath.invoke(null, ModelFiles.TOKENIZER),
					defaults);
		this.embedAll = modelClass.getMethod("embed", List.class);
		this.embed = modelClass.getMethod("embed", String.class);
	}

	@Override
	public String name() {
		return "uform-before";
	}

	@Override
	public float[][] embedAll(List<String> texts) {
		return (float[][]) call(this.embedAll, texts);
	}

	@Override
	public float[] embed(String text) {
		return (float[]) call(this.embed, text);
	}

	private Object call(Method method, Object argument) {
		try {
			return method.invoke(this.model, argument);
		}
		catch (InvocationTargetException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex.getCause());
		}
		catch (IllegalAccessException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() throws Exception {
		this.model.close();
		this.executor.close();
	}

	/** Loads the model's package from the jar first; the rest from the run's class path. */
	private static final class ChildFirst extends URLClassLoader {

		ChildFirst(URL jar, ClassLoader parent) {
			super(new URL[] { jar }, parent);
		}

		@Override
		protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
			if (!name.startsWith(PACKAGE)) {
				return super.loadClass(name, resolve);
			}
			synchronized (getClassLoadingLock(name)) {
				Class<?> loaded = findLoadedClass(name);
				if (loaded == null) {
					loaded = findClass(name);
				}
				if (resolve) {
					resolveClass(loaded);
				}
				return loaded;
			}
		}
	}
}
