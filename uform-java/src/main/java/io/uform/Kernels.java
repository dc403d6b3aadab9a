package io.uform;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * The kernels shipped with uform, as committed PTX (ISA 8.0, {@code sm_75}: any CUDA 12.0 or newer
 * driver loads them). Users never need {@code nvcc}; {@code scripts/gen-ptx.sh} regenerates them
 * from {@code uform-java/src/main/cuda}.
 */
public final class Kernels {

	private static final String DOT_F32 = "uform_dot_f32";

	private static volatile KernelSource dotF32;

	private static volatile Properties dotF32Launch;

	private Kernels() {
	}

	/**
	 * Batched dot products, the core of exact vector search: for a row-major {@code rows x dim}
	 * float matrix and {@code nqueries x dim} queries, {@code scores[q * rows + r] = dot(queries[q],
	 * matrix[r])}. Launch it with {@link DeviceLane#dotProducts}, which knows its launch shape.
	 * @return the kernel's source
	 */
	public static KernelSource dotF32() {
		KernelSource source = dotF32;
		if (source == null) {
			source = new KernelSource(resource(DOT_F32 + ".ptx"), DOT_F32);
			dotF32 = source;
		}
		return source;
	}

	/** The launch shape of {@link #dotF32()}: threads per block, rows per block. */
	static int dotF32Launch(String key) {
		Properties launch = dotF32Launch;
		if (launch == null) {
			launch = new Properties();
			try {
				launch.load(new java.io.StringReader(resource(DOT_F32 + ".launch")));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			dotF32Launch = launch;
		}
		return Integer.parseInt(launch.getProperty(key).trim());
	}

	private static String resource(String name) {
		try (InputStream in = Kernels.class.getResourceAsStream("/io/uform/kernels/" + name)) {
			if (in == null) {
				throw new IllegalStateException("the uform jar lacks io/uform/kernels/" + name + "; it is built into it");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}
}
