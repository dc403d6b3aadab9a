package io.uform.onnxruntime;

import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import io.uform.DeviceLane;

/**
 * One ONNX Runtime session of a model: its weights, on the host or on one GPU, and no threads of its
 * own. Intra-op and inter-op pools at one thread, sequential execution and no spinning mean a call
 * computes on the thread that makes it and nowhere else, so the executor that calls it decides how
 * many cores work. Safe to call from many threads at once (ONNX Runtime's {@code Run} is).
 *
 * <p>Each call embeds one text: no padding, so a text's vector does not depend on what it was batched
 * with (a quantized model scales its activations per call, so a padded batch would shift it).
 */
final class ModelSession implements AutoCloseable {

	private final OrtEnvironment environment;

	private final OrtSession session;

	private final ModelSignature signature;

	private final Pooling pooling;

	private final boolean normalize;

	private final ModelGate gate;

	private final Set<String> outputs;

	/** Tests only: told the thread of every session call, just before it. */
	volatile Consumer<Thread> probe;

	private ModelSession(OrtEnvironment environment, OrtSession session, ModelSignature signature,
			TextEmbeddingOptions options, ModelGate gate) {
		this.environment = environment;
		this.session = session;
		this.signature = signature;
		this.pooling = options.pooling();
		this.normalize = options.normalize();
		this.gate = gate;
		this.outputs = Set.of(signature.output());
	}

	/**
	 * Opens a session on the host, or on a device with the CUDA provider.
	 * @param source the ONNX file, read by ONNX Runtime itself where it is a file
	 * @param model the file's bytes, or {@code null} to let ONNX Runtime read {@code source}'s path
	 * @param lane the device, or {@code null} for the host
	 * @param cuda the CUDA provider, used only with a device
	 * @param options the model's options
	 * @param gate the model's gate
	 * @return the session
	 */
	static ModelSession open(ModelSource source, byte[] model, DeviceLane lane, CudaProvider cuda,
			TextEmbeddingOptions options, ModelGate gate) {
		OrtEnvironment environment = OrtEnvironment.getEnvironment();
		AutoCloseable provider = null;
		try (OrtSession.SessionOptions settings = new OrtSession.SessionOptions()) {
			settings.setIntraOpNumThreads(1);
			settings.setInterOpNumThreads(1);
			settings.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
			settings.addConfigEntry("session.intra_op.allow_spinning", "0");
			settings.addConfigEntry("session.inter_op.allow_spinning", "0");
			if (lane != null) {
				provider = cuda.add(settings, lane, CudaProvider.options(lane));
			}
			OrtSession session = (model != null) ? environment.createSession(model, settings)
					: environment.createSession(source.path().toString(), settings);
			try {
				return new ModelSession(environment, session, ModelSignature.read(session, options.output(), options.name()),
						options, gate);
			}
			catch (OrtException | RuntimeException ex) {
				session.close();
				throw ex;
			}
		}
		catch (OrtException ex) {
			throw new IllegalArgumentException("ONNX Runtime could not load model '" + options.name() + "' from " + source
					+ ": " + ex.getMessage(), ex);
		}
		finally {
			if (provider != null) {
				try {
					provider.close();
				}
				catch (Exception ex) {
					// The session holds what it needs; the provider options are only a builder.
				}
			}
		}
	}

	/**
	 * Embeds one text on the calling thread.
	 * @param ids its token ids, special tokens included
	 * @return its vector
	 */
	float[] embed(long[] ids) {
		long[] shape = { 1, ids.length };
		long[] ones = new long[ids.length];
		Arrays.fill(ones, 1);
		Lock use = this.gate.useNatives();
		Map<String, OnnxTensor> inputs = new HashMap<>(4);
		try {
			inputs.put(ModelSignature.INPUT_IDS, OnnxTensor.createTensor(this.environment, LongBuffer.wrap(ids), shape));
			inputs.put(ModelSignature.ATTENTION_MASK, OnnxTensor.createTensor(this.environment, LongBuffer.wrap(ones), shape));
			if (this.signature.tokenTypes()) {
				inputs.put(ModelSignature.TOKEN_TYPE_IDS,
						OnnxTensor.createTensor(this.environment, LongBuffer.wrap(new long[ids.length]), shape));
			}
			Consumer<Thread> observer = this.probe;
			if (observer != null) {
				observer.accept(Thread.currentThread());
			}
			try (OrtSession.Result result = this.session.run(inputs, this.outputs)) {
				OnnxTensor output = (OnnxTensor) result.get(0);
				long[] outShape = output.getInfo().getShape();
				int dimensions = (int) outShape[outShape.length - 1];
				FloatBuffer values = output.getFloatBuffer();
				float[] vector = this.signature.pooled() ? copy(values, dimensions)
						: this.pooling.pool(values, ids.length, dimensions);
				if (this.normalize) {
					Pooling.normalize(vector);
				}
				return vector;
			}
		}
		catch (OrtException ex) {
			throw new IllegalStateException("ONNX Runtime failed to embed a text of " + ids.length + " tokens: "
					+ ex.getMessage(), ex);
		}
		finally {
			for (OnnxTensor tensor : inputs.values()) {
				tensor.close();
			}
			use.unlock();
		}
	}

	/**
	 * What the file declares.
	 * @return its signature
	 */
	ModelSignature signature() {
		return this.signature;
	}

	/**
	 * The vector length the file declares.
	 * @return the output's last dimension, or {@code -1} where the file leaves it symbolic
	 */
	int declaredDimensions() throws OrtException {
		long[] shape = ((TensorInfo) this.session.getOutputInfo().get(this.signature.output()).getInfo())
			.getShape();
		return (int) shape[shape.length - 1];
	}

	private static float[] copy(FloatBuffer values, int dimensions) {
		float[] vector = new float[dimensions];
		values.get(0, vector, 0, dimensions);
		return vector;
	}

	/** Closes the session; the caller holds the gate's write lock. */
	@Override
	public void close() {
		try {
			this.session.close();
		}
		catch (OrtException ex) {
			throw new IllegalStateException("ONNX Runtime could not close its session: " + ex.getMessage(), ex);
		}
	}
}
